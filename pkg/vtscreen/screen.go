// Package vtscreen is a terminal's visible text: the charmbracelet/x/vt
// emulator behind two guards.
//
//   - Counts are clamped: a sequence that repeats, tabs, inserts, deletes,
//     erases, scrolls or moves by a count (REP, CHT, CBT, ICH, DCH, ECH, IL,
//     DL, SU, SD, CUU…) never asks for more than the grid can show, so
//     `printf 'A\033[2147483646b'` costs a screenful, not minutes.
//   - Output that can only scroll away is skipped: a run of plain text,
//     SGR colours and line breaks is held back, and once it holds more
//     line feeds than four screens (or one, when someone reads), all but
//     its last screen are dropped before the emulator sees them. A flood then costs a scan of
//     its bytes, not an emulation of every row that scrolls off.
//
// The text, the cursor, the title and the replies to queries are exactly
// what the emulator alone would give for the same writes; equivalence tests
// and a fuzz target in this package hold that. What is not kept is the
// colour of rows that were skipped — no reader of the text can see it.
package vtscreen

import (
	"io"
	"strings"
	"sync"

	"github.com/charmbracelet/x/vt"
)

// Screen is not safe for concurrent use except Title, which any goroutine
// may call while another writes.
type Screen struct {
	emu        *vt.Emulator
	cols, rows int
	hold       hold
	margins    margins
	replies    io.Writer
	pumped     chan struct{}
	resets     int

	titleMu sync.Mutex
	title   string
}

// New makes a cols x rows screen. Replies to the remote program's queries
// (cursor position, device attributes) are written to replies, from a
// goroutine of the Screen's own that ends at Close; nil discards them.
func New(cols, rows int, replies io.Writer) *Screen {
	if replies == nil {
		replies = io.Discard
	}
	s := &Screen{cols: cols, rows: rows, replies: replies}
	s.start()
	return s
}

func (s *Screen) start() {
	emu := vt.NewEmulator(s.cols, s.rows)
	// dvv keeps the raw output as scrollback, so the emulator keeps none:
	// a zero Scrollback takes no lines (x/vt's own setter cannot go below
	// one, and each line it keeps is a copy made on every scroll). Nothing
	// x/vt shows on screen is read back from it.
	*emu.Scrollback() = vt.Scrollback{}
	emu.SetCallbacks(vt.Callbacks{Title: func(t string) {
		s.titleMu.Lock()
		s.title = t
		s.titleMu.Unlock()
	}})
	s.emu, s.hold, s.margins = emu, newHold(), margins{}
	s.guard()
	s.pumped = make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		// Drain until Close even when replies fails: an undrained reply
		// would block the emulator, and whoever holds the screen, for good.
		buf := make([]byte, 512)
		for {
			n, err := emu.Read(buf)
			if n > 0 {
				s.replies.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}(s.pumped)
}

// stop ends the reply pump. (Emulator.Close would flip a flag its Read
// checks without a lock; closing the pipe's writer is enough.)
func (s *Screen) stop() {
	if c, ok := s.emu.InputPipe().(io.Closer); ok {
		c.Close()
	}
	<-s.pumped
}

// write feeds the emulator. Should it panic on a sequence nobody has
// guarded against yet, the screen starts afresh (blank, same size) rather
// than take the daemon down; Resets counts those.
func (s *Screen) write(p []byte) {
	defer func() {
		if recover() != nil {
			s.stop()
			s.resets++
			s.start()
		}
	}()
	s.emu.Write(p)
}

// Resets is how many times the emulator failed on its input and the
// screen started afresh.
func (s *Screen) Resets() int { return s.resets }

// Write gives the screen the remote's output, in the chunks it arrived in.
func (s *Screen) Write(p []byte) {
	if len(p) == 0 {
		return
	}
	if !s.hold.ground { // an earlier chunk ended inside a sequence
		if n := s.hold.settle(p); n > 0 && n < len(p) {
			s.emulate(p[:n])
			p = p[n:]
		}
	}
	if s.hold.ground {
		scan := s.hold.scan
		if ok, lfs := s.hold.scan.scan(p); ok {
			s.hold.add(p, lfs)
			s.hold.trim(s.rows, s.emu.CursorPosition().Y, s.margins.full(s.emu.IsAltScreen()), false)
			if len(s.hold.buf) > holdMax { // a run too long without enough line feeds
				s.flush()
			}
			return
		}
		s.hold.scan = scan
	}
	s.flush()
	s.emulate(p)
}

// emulate gives p to the emulator whole and follows its parser's state.
func (s *Screen) emulate(p []byte) {
	resets := s.resets
	s.write(p)
	if s.resets == resets {
		s.hold.follow(p)
	}
}

// flush hands the held output to the emulator, in its original chunks.
// The held output may end inside an SGR sequence or a character: follow
// walks it so the next chunk is judged from there.
func (s *Screen) flush() {
	h := &s.hold
	if len(h.ends) == 0 && !h.lead && h.scan.state == scanGround {
		return
	}
	// reset keeps buf's array for the next run; nothing writes to it
	// before this flush is done.
	lead, buf, ends, partial := h.lead, h.buf, h.ends, h.scan.state != scanGround
	h.reset()
	if lead {
		s.write(leadIn)
	}
	resets, start := s.resets, 0
	for _, end := range ends {
		s.write(buf[start:end])
		start = end
	}
	if partial && s.resets == resets {
		h.follow(buf)
	}
}

// Text is the visible screen, one string per row with trailing blanks
// trimmed (the second half of a wide character is no cell of its own), and
// the cursor's column and row, zero based.
func (s *Screen) Text() ([]string, int, int) {
	s.hold.trim(s.rows, s.emu.CursorPosition().Y, s.margins.full(s.emu.IsAltScreen()), true)
	s.flush()
	rows := make([]string, s.rows)
	var b strings.Builder
	for y := 0; y < s.rows; y++ {
		b.Reset()
		for x := 0; x < s.cols; x++ {
			c := s.emu.CellAt(x, y)
			switch {
			case c == nil:
				b.WriteByte(' ')
			case c.IsZero(): // the second half of a wide character
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	p := s.emu.CursorPosition()
	return rows, p.X, p.Y
}

// Title is the last title the remote set (OSC 0 or 2). It is current as of
// the last Write that carried an escape sequence: held text sets none.
func (s *Screen) Title() string {
	s.titleMu.Lock()
	defer s.titleMu.Unlock()
	return s.title
}

// Size is the grid's columns and rows.
func (s *Screen) Size() (int, int) { return s.cols, s.rows }

// Resize changes the grid; the emulator resets its scroll margins.
func (s *Screen) Resize(cols, rows int) {
	s.flush()
	s.emu.Resize(cols, rows)
	s.cols, s.rows = cols, rows
	s.margins = margins{}
}

// Close ends the reply goroutine. The screen takes no writes after it.
func (s *Screen) Close() { s.stop() }
