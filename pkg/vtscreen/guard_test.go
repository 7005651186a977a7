package vtscreen

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	ts "github.com/dvvhq/dvv/internal/termstreams"
)

func textOf(rows []string, x, y int) string {
	return fmt.Sprintf("%s\ncursor %d,%d", strings.Join(rows, "\n"), x, y)
}

// TestHugeCountsAreClamped: a count far beyond the grid finishes at once
// and leaves what a count just beyond the grid leaves in the emulator
// alone (for REP: one with the same remainder modulo the width).
func TestHugeCountsAreClamped(t *testing.T) {
	t.Parallel()
	const cols, rows = 30, 8
	const huge = 2147483646
	for _, final := range "@ABCDEFGILMPSTXZ`abde" {
		t.Run(string(final), func(t *testing.T) {
			same := huge
			if final == 'b' {
				floor := cols * (rows + 2)
				same = floor + (huge-floor)%cols + 5*cols
			} else {
				same = max(cols, rows) + 9
			}
			prefix := "one\r\ntwo\r\n\x1b[3;5HA"
			s := New(cols, rows, nil)
			defer s.Close()
			s.Write([]byte(fmt.Sprintf("%s\x1b[%d%c", prefix, huge, final)))
			got := textOf(s.Text())
			ref := newReference(cols, rows)
			defer ref.close()
			ref.emu.Write([]byte(fmt.Sprintf("%s\x1b[%d%c", prefix, same, final)))
			if want := textOf(ref.text()); got != want {
				t.Fatalf("CSI %d %c:\n%s\nwant (count %d):\n%s", huge, final, got, same, want)
			}
		})
	}
	t.Run("digits past int64", func(t *testing.T) {
		s := New(cols, rows, nil)
		defer s.Close()
		for _, final := range "bIZ@PXLMST" {
			s.Write([]byte("A\x1b[" + strings.Repeat("9", 40) + string(final)))
		}
		s.Text()
	})
}

// TestMarginsPastTheEdge: x/vt alone panics on a scroll region that ends
// below the screen or right of it; clamped, it is the whole screen.
func TestMarginsPastTheEdge(t *testing.T) {
	t.Parallel()
	const cols, rows = 10, 4
	cases := map[string]string{
		"\x1b[1;999r\x1b[L\x1b[M\x1bM\x1b[S\x1b[Tx\r\ny\r\nz\r\nw\r\n":          "\x1b[1;4r\x1b[L\x1b[M\x1bM\x1b[S\x1b[Tx\r\ny\r\nz\r\nw\r\n",
		"\x1b[?69h\x1b[2;999sabcdefghijklmnop\r\nq\r\nr\r\ns\r\n\x1b[5@\x1b[5P": "\x1b[?69h\x1b[2;10sabcdefghijklmnop\r\nq\r\nr\r\ns\r\n\x1b[5@\x1b[5P",
	}
	for in, clamped := range cases {
		s := New(cols, rows, nil)
		s.Write([]byte(in))
		got := textOf(s.Text())
		s.Close()
		if s.Resets() != 0 {
			t.Fatalf("%q: the emulator failed and was reset", in)
		}
		ref := newReference(cols, rows)
		ref.emu.Write([]byte(clamped))
		want := textOf(ref.text())
		ref.close()
		if got != want {
			t.Fatalf("%q:\n%s\nwant:\n%s", in, got, want)
		}
	}
}

// TestFloodIsSkipped: most of a coloured flood never reaches the
// emulator, and what the screen shows is still the end of it.
func TestFloodIsSkipped(t *testing.T) {
	t.Parallel()
	data := ts.ColouredLs(4 << 20)
	s := New(120, 40, nil)
	defer s.Close()
	for at := 0; at < len(data); at += 32 << 10 {
		s.Write(data[at:min(at+32<<10, len(data))])
	}
	rows, _, _ := s.Text()
	if frac := float64(s.hold.skipped) / float64(len(data)); frac < 0.9 {
		t.Fatalf("only %.0f%% of the flood was skipped", 100*frac)
	}
	i := strings.LastIndex(string(data), "object-")
	last := string(data[i : i+len("object-000000")])
	if !strings.Contains(rows[len(rows)-2], last) {
		t.Fatalf("the last line is not on the screen: %q", rows[len(rows)-2])
	}
}

// FuzzScreenSurvives: any bytes, huge parameters included, on any small
// grid: the screen never panics, never needs a reset (x/vt failing), and
// finishes (a count that is not clamped would run for minutes).
func FuzzScreenSurvives(f *testing.F) {
	f.Add([]byte("A\x1b[2147483646b\x1b[2147483646I\x1b[2147483646Z"), uint8(7))
	f.Add([]byte("\x1b[1;999r\x1b[L\x1b[?69h\x1b[2;999s\x1b[M\x1bM"), uint8(40))
	f.Add([]byte("x\x1b["+strings.Repeat("9", 30)+"@\x1b[99999999999999999999;99999999999999999999H"), uint8(3))
	f.Add([]byte("\x1b[?1049h\x1b[5;3r\x1b[99T\x1b[99S\x1b[?6h\x1b[99;99H\x1b[99X"), uint8(100))
	f.Fuzz(func(t *testing.T, data []byte, shape uint8) {
		if len(data) > 4<<10 {
			return
		}
		s := New(1+int(shape%40), 1+int(shape/40), nil)
		defer s.Close()
		for len(data) > 0 {
			n := min(len(data), 1+int(shape%17))
			s.Write(data[:n])
			data = data[n:]
		}
		s.Text()
		if s.Resets() != 0 {
			t.Fatalf("the emulator panicked on this input (the screen was reset)")
		}
	})
}

// TestFloodIsSkippedWhileRead: a PTY's chunks cut colour sequences
// anywhere, and a reader looks now and then, so the held output may end
// inside a sequence when it goes to the emulator. Only the end of that
// sequence must follow it there: here every chunk ends inside one, and
// the rest of each chunk must still be held and skipped.
func TestFloodIsSkippedWhileRead(t *testing.T) {
	t.Parallel()
	data := ts.ColouredLs(4 << 20)
	s := New(120, 40, nil)
	defer s.Close()
	reads := 0
	for at, i := 0, 0; at < len(data); i++ {
		end := len(data)
		if next := bytes.Index(data[min(at+4000, len(data)):], []byte("\x1b[")); next >= 0 {
			end = min(at+4000, len(data)) + next + 3 // just inside the sequence
		}
		s.Write(data[at:end])
		at = end
		if i%5 == 0 {
			s.Text()
			reads++
		}
	}
	// A read emulates a screen or two (40 lines of about 80 bytes).
	if emulated := len(data) - int(s.hold.skipped); emulated > reads*8<<10 {
		t.Fatalf("%d bytes of %d went to the emulator over %d reads; a read should cost a screen or two", emulated, len(data), reads)
	}
}
