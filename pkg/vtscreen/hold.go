package vtscreen

import (
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
	chunks  [][]byte
	bytes   int
	lfs     int  // line feeds in chunks
	lead    bool // a prefix was skipped: leadIn goes first
	ground  bool // the emulator's parser is between sequences, outside the hold
	scan    scanner
	skipped int64 // bytes never given to the emulator, over the screen's life
	// The emulator's parser state after the last chunk it took whole.
	pstate   parser.State
	utf8Left int
}

func newHold() hold { return hold{ground: true, pstate: parser.GroundState} }

func (h *hold) reset() {
	h.chunks, h.bytes, h.lfs, h.lead = h.chunks[:0], 0, 0, false // skipped stays
	h.scan = scanner{}
}

// add keeps a copy of a chunk that simple accepted, with its line feeds.
func (h *hold) add(p []byte, lfs int) {
	h.chunks = append(h.chunks, append([]byte(nil), p...))
	h.bytes += len(p)
	h.lfs += lfs
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
// the whole screen and there is more than two screens (or, eager, for a
// read, more than one). cursorY is the emulator's cursor row.
func (h *hold) trim(rows, cursorY int, fullMargins, eager bool) {
	keep := rows
	if !fullMargins || h.lfs <= keep || (!eager && h.lfs < 2*keep) {
		return
	}
	startY := cursorY
	if h.lead {
		startY = 0
	}
	n := 0
	for ci := len(h.chunks) - 1; ci >= 0; ci-- {
		c := h.chunks[ci]
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
	for ; ci < len(h.chunks); ci, off = ci+1, 0 {
		c := h.chunks[ci]
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

func (h *hold) cut(ci, off, lfsAfter int) {
	before := h.bytes
	rest := h.chunks[ci][off:]
	kept := h.chunks[:0]
	if len(rest) > 0 {
		kept = append(kept, rest)
	}
	kept = append(kept, h.chunks[ci+1:]...)
	for i := len(kept); i < len(h.chunks); i++ {
		h.chunks[i] = nil
	}
	h.chunks = kept
	h.bytes = 0
	for _, c := range kept {
		h.bytes += len(c)
	}
	h.lfs = lfsAfter
	h.lead = true
	h.skipped += int64(before - h.bytes)
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
