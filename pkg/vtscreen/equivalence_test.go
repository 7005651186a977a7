package vtscreen

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/vt"

	ts "github.com/dvvhq/dvv/internal/termstreams"
)

// lockedBuf collects replies from a pump goroutine.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// reference is the emulator alone, fed and read the way the terminal limb
// did before this package: the behaviour Screen must keep. It has the
// margin clamp, without which x/vt panics (see clampMargins).
type reference struct {
	emu        *vt.Emulator
	cols, rows int
	title      string
	replies    lockedBuf
	pumped     chan struct{}
}

func newReference(cols, rows int) *reference {
	r := &reference{emu: vt.NewEmulator(cols, rows), cols: cols, rows: rows, pumped: make(chan struct{})}
	r.emu.SetScrollbackSize(1)
	clampMargins(r.emu)
	r.emu.SetCallbacks(vt.Callbacks{Title: func(s string) { r.title = s }})
	go func() { defer close(r.pumped); io.Copy(&r.replies, r.emu) }()
	return r
}

func (r *reference) text() ([]string, int, int) {
	rows := make([]string, r.rows)
	var b strings.Builder
	for y := 0; y < r.rows; y++ {
		b.Reset()
		for x := 0; x < r.cols; x++ {
			c := r.emu.CellAt(x, y)
			switch {
			case c == nil:
				b.WriteByte(' ')
			case c.IsZero():
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	p := r.emu.CursorPosition()
	return rows, p.X, p.Y
}

// write reports false when the emulator panicked.
func (r *reference) write(p []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	r.emu.Write(p)
	return true
}

func (r *reference) close() {
	r.emu.InputPipe().(io.Closer).Close()
	<-r.pumped
}

// same feeds data to a Screen and to the reference in the same chunks
// and compares text, cursor and title at read points, and all replies at
// the end. chunk and read decide chunk sizes and when to read.
func same(t testing.TB, data []byte, cols, rows int, chunk func() int, read func() bool) {
	t.Helper()
	var replies lockedBuf
	s := New(cols, rows, &replies)
	ref := newReference(cols, rows)
	check := func(at int) {
		got, gx, gy := s.Text()
		want, wx, wy := ref.text()
		if gx != wx || gy != wy || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("after %d of %d bytes (%dx%d): cursor %d,%d want %d,%d\ngot:\n%s\nwant:\n%s\nstream: %q",
				at, len(data), cols, rows, gx, gy, wx, wy, strings.Join(got, "|\n"), strings.Join(want, "|\n"), clipQ(data, at))
		}
		if s.Title() != ref.title {
			t.Fatalf("after %d bytes: title %q want %q", at, s.Title(), ref.title)
		}
	}
	for at := 0; at < len(data); {
		n := min(max(chunk(), 1), len(data)-at)
		p := append([]byte(nil), data[at:at+n]...)
		s.Write(p)
		for i := range p { // the caller reuses its buffer
			p[i] = 'Z'
		}
		if !ref.write(data[at : at+n]) {
			t.Logf("the emulator alone panics after %d bytes: %q", at, clipQ(data, at+n))
			return // Screen survived it (it recovers); nothing to compare with
		}
		at += n
		if read() {
			check(at)
		}
	}
	check(len(data))
	s.Close()
	ref.close()
	if replies.String() != ref.replies.String() {
		t.Fatalf("replies %q want %q", replies.String(), ref.replies.String())
	}
}

func clipQ(b []byte, at int) []byte {
	from := max(0, at-300)
	return b[from:min(len(b), at)]
}

func TestSameTextAsTheEmulatorAlone(t *testing.T) {
	t.Parallel()
	const cols, rows = 80, 24
	streams := map[string][]byte{
		"plain":   ts.PlainText(400 << 10),
		"ls":      ts.ColouredLs(400 << 10),
		"top":     ts.TopRedraw(200<<10, cols, rows),
		"wide":    ts.WideText(200 << 10),
		"seq":     ts.Seq(1, 15000),
		"nolines": bytes.Repeat([]byte("no line feed at all "), 15000),
		// Short lines over a full screen of long ones, from the top: the
		// rows below the cursor hold stale text until they scroll away.
		"stale": append(append(bytes.Repeat([]byte(strings.Repeat("#", 79)+"\r\n"), 30), "\x1b[H"...), shortLines(3000)...),
	}
	for name, data := range streams {
		for _, readEvery := range []int{1, 7, 1 << 30} {
			t.Run(fmt.Sprintf("%s/read every %d", name, readEvery), func(t *testing.T) {
				r := rand.New(rand.NewSource(int64(len(data) + readEvery)))
				n := 0
				most := 8192
				if name == "stale" {
					most = 40
				}
				same(t, data, cols, rows, func() int { return 1 + r.Intn(most) }, func() bool { n++; return n%readEvery == 0 })
			})
		}
	}
}

func TestSameTextOnRandomStreams(t *testing.T) {
	t.Parallel()
	iters := 120
	if testing.Short() {
		iters = 30
	}
	for i := 0; i < iters; i++ {
		r := rand.New(rand.NewSource(int64(i)))
		cols, rows := 2+r.Intn(40), 1+r.Intn(12)
		data := ts.RandomStream(r, 2000+r.Intn(20000), cols, rows)
		same(t, data, cols, rows, func() int { return 1 + r.Intn(1+r.Intn(600)) }, func() bool { return r.Intn(8) == 0 })
	}
}

// FuzzSameText: any bytes, any chunking, same text as the emulator alone.
// Counts above 4 digits are cut so the unguarded reference finishes.
func FuzzSameText(f *testing.F) {
	r := rand.New(rand.NewSource(9))
	for i := 0; i < 20; i++ {
		f.Add(ts.RandomStream(r, 500, 20, 6), uint8(i), uint16(37*i))
	}
	f.Add(ts.ColouredLs(4000), uint8(3), uint16(300))
	f.Add([]byte("A\x1b[9999b\x1b[9999I\x1b[9999Z"), uint8(0), uint16(5))
	f.Fuzz(func(t *testing.T, data []byte, shape uint8, chunk uint16) {
		if len(data) > 8<<10 || longDigits(data) {
			return
		}
		cols, rows := 2+int(shape%30), 1+int(shape/30)
		c := int(chunk%512) + 1
		k := 0
		same(t, data, cols, rows, func() int { return c }, func() bool { k++; return k%3 == 0 })
	})
}

func shortLines(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "short %d\r\n", i)
	}
	return b.Bytes()
}

func longDigits(b []byte) bool {
	run := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			if run++; run > 4 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// TestSkipWaitsForTheBottomRow: short lines written from the top over a
// screen of long ones leave stale tails on the rows below the cursor, so
// nothing may be skipped until the cursor has surely reached the bottom.
func TestSkipWaitsForTheBottomRow(t *testing.T) {
	t.Parallel()
	data := append(append(bytes.Repeat([]byte(strings.Repeat("#", 79)+"\r\n"), 30), "\x1b[H"...), shortLines(400)...)
	for _, every := range []int{12, 15, 20, 30} {
		n := 0
		same(t, data, 80, 24, func() int { return 20 }, func() bool { n++; return n%every == 0 })
	}
}

// TestSameTextWhenChunksCutSequences: every chunk ends one to three bytes
// into an escape sequence or a UTF-8 character, so the held output often
// ends inside one when a read flushes it, and the next chunk starts there.
func TestSameTextWhenChunksCutSequences(t *testing.T) {
	t.Parallel()
	const cols, rows = 80, 24
	r := rand.New(rand.NewSource(7))
	streams := map[string][]byte{
		"ls":     ts.ColouredLs(300 << 10),
		"wide":   ts.WideText(100 << 10),
		"top":    ts.TopRedraw(100<<10, cols, rows),
		"random": ts.RandomStream(r, 60000, cols, rows),
	}
	for name, data := range streams {
		for _, readEvery := range []int{1, 3, 11} {
			t.Run(fmt.Sprintf("%s/read every %d", name, readEvery), func(t *testing.T) {
				at, n := 0, 0
				cut := func() int {
					from := min(at+200+r.Intn(3000), len(data))
					next := bytes.IndexFunc(data[from:], func(c rune) bool { return c == 0x1b || c >= 0x80 })
					end := len(data)
					if next >= 0 {
						end = min(from+next+1+r.Intn(3), len(data))
					}
					size := end - at
					at = end
					return size
				}
				same(t, data, cols, rows, cut, func() bool { n++; return n%readEvery == 0 })
			})
		}
	}
}
