package vtscreen

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"
)

// holdMax bounds the output held back without enough line feeds to skip
// any of it (one enormous line): past it the emulator takes it all.
const holdMax = 1 << 20

// hold is output not yet given to the emulator: plain text, SGR colours,
// CR, LF, HT and BS only, which move the cursor down and never up and
// change nothing but the cells they pass and the pen.
//
// Why the skip is exact. Cut just after a CR at a point P where the
// cursor is surely on the bottom row (the emulator's row when the hold
// began, or the top after an earlier cut, plus the line feeds before P,
// reaches it), and keep at least rows line feeds after P. With full
// margins, every one of those line feeds scrolls a fresh blank row in, so
// the rows on screen at the end hold only what was written after P, and
// the row P was on has scrolled away. A screen cleared and written from
// the top with the same bytes ends the same: its rows are blank before
// they are written, and after rows line feeds it too has scrolled the
// first one away; the cursor ends on the bottom row at the same column.
// So the emulator gets "clear, home" and the kept part instead. The last
// character REP repeats is the same once the kept part prints one of its
// own (three ASCII characters in a row guarantee a lone one).
type hold struct {
	buf     []byte // the held chunks, back to back: no allocation per chunk
	ends    []int  // where each chunk ends in buf
	lfs     int    // line feeds in buf
	lead    bool   // a prefix was skipped: leadIn goes first
	ground  bool   // the emulator's parser is between sequences, outside the hold
	scan    scanner
	skipped int64 // bytes never given to the emulator, over the screen's life
	// The emulator's parser state after the last chunk it took whole.
	pstate   parser.State
	utf8Left int
}

// holdKeep is the most buffer capacity an emptied hold keeps for the
// next run; a hold that grew past it (a long line) gives it back.
const holdKeep = 256 << 10

func newHold() hold { return hold{ground: true, pstate: parser.GroundState} }

func (h *hold) reset() {
	if cap(h.buf) > holdKeep {
		h.buf = nil
	}
	h.buf, h.ends, h.lfs, h.lead = h.buf[:0], h.ends[:0], 0, false // skipped stays
	h.scan = scanner{}
}

// add keeps a copy of a chunk that the scanner accepted, with its line feeds.
func (h *hold) add(p []byte, lfs int) {
	h.buf = append(h.buf, p...)
	h.ends = append(h.ends, len(h.buf))
	h.lfs += lfs
}

// chunk is the i-th held chunk.
func (h *hold) chunk(i int) []byte {
	start := 0
	if i > 0 {
		start = h.ends[i-1]
	}
	return h.buf[start:h.ends[i]]
}

// settle is how much of p the emulator must take to finish the sequence
// (or character) an earlier chunk cut, up to a point where x/vt holds
// nothing back: just after a control it executed or a sequence it
// dispatched, each of which first flushes a pending grapheme. Ending a
// write there changes nothing, so the rest of p can be judged as a chunk
// of its own. 0 when p has no such point.
func (h *hold) settle(p []byte) int {
	st, left := h.pstate, h.utf8Left
	for i, b := range p {
		if st == parser.Utf8State {
			if left--; left <= 0 {
				st = parser.GroundState
			}
			continue
		}
		var act parser.Action
		st, act = parser.Table.Transition(st, b)
		switch {
		case st == parser.Utf8State:
			left = utf8Len(b) - 1
		case st == parser.GroundState && (act == parser.ExecuteAction || act == parser.DispatchAction):
			return i + 1
		}
	}
	return 0
}

// follow tracks the emulator's parser state across a chunk it took
// whole, so a chunk that starts inside a sequence is never taken for
// text. It walks x/ansi's own transition table (the parser's state is
// that table plus a count of UTF-8 bytes), without the parser's work.
func (h *hold) follow(p []byte) {
	st, left := h.pstate, h.utf8Left
	for _, b := range p {
		if st == parser.Utf8State {
			if left--; left <= 0 {
				st = parser.GroundState
			}
			continue
		}
		st, _ = parser.Table.Transition(st, b)
		if st == parser.Utf8State {
			left = utf8Len(b) - 1
		}
	}
	h.pstate, h.utf8Left = st, left
	h.ground = st == parser.GroundState
}

// utf8Len is the length of the UTF-8 sequence b starts (b is 0xC2..0xF4).
func utf8Len(b byte) int {
	switch {
	case b >= 0xf0:
		return 4
	case b >= 0xe0:
		return 3
	}
	return 2
}

// leadIn replaces skipped output: erase the screen, cursor home.
var leadIn = []byte("\x1b[2J\x1b[H")

// trim drops all but the last screen of held output, when the margins are
// the whole screen and there is more than four screens (or, eager, for a
// read, more than one). cursorY is the emulator's cursor row.
func (h *hold) trim(rows, cursorY int, fullMargins, eager bool) {
	keep := rows
	if !fullMargins || h.lfs <= keep || (!eager && h.lfs < 4*keep) {
		return
	}
	startY := cursorY
	if h.lead {
		startY = 0
	}
	n := 0
	for ci := len(h.ends) - 1; ci >= 0; ci-- {
		c := h.chunk(ci)
		for i := len(c) - 1; i >= 0; i-- {
			switch c[i] {
			case '\n':
				n++
			case '\r':
				if n < keep {
					continue
				}
				if startY+h.lfs-n < rows-1 { // not surely on the bottom row here, nor earlier
					return
				}
				if h.printsLone(ci, i+1) {
					h.cut(ci, i+1, n)
					return
				}
			}
		}
	}
}

// printsLone reports whether the held output from (ci, off) prints an
// ASCII character that is a grapheme of its own: one between two others.
func (h *hold) printsLone(ci, off int) bool {
	run, inSGR := 0, false
	for ; ci < len(h.ends); ci, off = ci+1, 0 {
		c := h.chunk(ci)
		for i := off; i < len(c); i++ {
			b := c[i]
			switch {
			case inSGR: // skip to its final byte, maybe chunks later
				inSGR = b != 'm'
			case b == 0x1b:
				inSGR, run = true, 0
			case b >= 0x20 && b < 0x7f:
				if run++; run == 3 {
					return true
				}
			default:
				run = 0
			}
		}
	}
	return false
}

// cut drops the held output before offset off of chunk ci; lfsAfter line
// feeds remain. The rest moves to the front of buf (a screen or two).
func (h *hold) cut(ci, off, lfsAfter int) {
	from := off
	if ci > 0 {
		from += h.ends[ci-1]
	}
	kept := h.ends[:0]
	for _, e := range h.ends[ci:] {
		if e > from {
			kept = append(kept, e-from)
		}
	}
	h.ends = kept
	h.buf = h.buf[:copy(h.buf, h.buf[from:])]
	h.lfs = lfsAfter
	h.lead = true
	h.skipped += int64(from)
}

// scanner recognises the output the hold may take: printable text, SGR
// sequences, CR, LF, HT and BS. A token may straddle chunks.
type scanner struct {
	state int     // scanGround, scanEsc, scanSGR, or scanRune
	rune  [4]byte // a UTF-8 character so far
	have  int     // its bytes so far
	need  int     // its length
}

const (
	scanGround = iota
	scanEsc
	scanSGR
	scanRune
)

// scan reports whether p continues such output, counting its line feeds.
// On false the scanner's state is meaningless until reset.
func (sc *scanner) scan(p []byte) (bool, int) {
	lfs := 0
	for i := 0; i < len(p); i++ {
		if sc.state == scanGround { // most of a flood: skip 8 bytes at a time
			for i+8 <= len(p) && printable8(binary.LittleEndian.Uint64(p[i:])) {
				i += 8
			}
			if i == len(p) {
				break
			}
		}
		b := p[i]
		switch sc.state {
		case scanEsc:
			if b != '[' {
				return false, 0
			}
			sc.state = scanSGR
			continue
		case scanSGR:
			switch {
			case b >= '0' && b <= '9', b == ';', b == ':':
			case b == 'm':
				sc.state = scanGround
			default:
				return false, 0
			}
			continue
		case scanRune:
			sc.rune[sc.have] = b
			if sc.have++; sc.have < sc.need {
				if b < 0x80 || b > 0xbf {
					return false, 0
				}
				continue
			}
			r, n := utf8.DecodeRune(sc.rune[:sc.need])
			if n != sc.need || r < 0xa0 { // invalid, or a C1 control
				return false, 0
			}
			sc.state = scanGround
			continue
		}
		if b >= 0x20 && b < 0x7f {
			continue
		}
		switch {
		case b == '\n':
			lfs++
		case b == '\r', b == '\t', b == '\b':
		case b == 0x1b:
			sc.state = scanEsc
		case b >= 0xc2 && b <= 0xf4:
			sc.rune[0], sc.have, sc.state = b, 1, scanRune
			switch {
			case b >= 0xf0:
				sc.need = 4
			case b >= 0xe0:
				sc.need = 3
			default:
				sc.need = 2
			}
		default:
			return false, 0
		}
	}
	return true, lfs
}

// printable8 reports whether all 8 bytes of w are printable ASCII
// (0x20..0x7e). With every high bit clear, adding 1 sets a byte's high
// bit only for 0x7f, and subtracting 0x20 borrows into a high bit only
// for a byte below 0x20 (the lowest such byte, the one that counts,
// borrows from no one).
func printable8(w uint64) bool {
	const ones, highs, spaces = 0x0101010101010101, 0x8080808080808080, 0x2020202020202020
	return (w|(w+ones))&highs == 0 && (w-spaces)&^w&highs == 0
}
