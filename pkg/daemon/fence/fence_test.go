package fence

import (
	"errors"
	"image"
	"testing"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/wire"
)

func code(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

// paint writes r's pixels grey level v, as a protocol client's decoder
// writes the mirror.
func paint(buf *fb.Buffer, r image.Rectangle, v byte) {
	pix, stride, _, _ := buf.BeginWrite()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X * 4; x < r.Max.X*4; x++ {
			pix[y*stride+x] = v
		}
	}
	buf.EndWrite(r)
}

// TestTypingFenceArmsOnARepaintPastTheThreshold: on a real mirror, a
// read clears the fence, a small repaint leaves it down, a repaint over
// the threshold arms it, and a resize arms it whatever its size.
func TestTypingFenceArmsOnARepaintPastTheThreshold(t *testing.T) {
	buf := fb.New()
	buf.Resize(320, 320)
	f := NewTyping(buf)
	defer f.Close()
	if v := View(f.Damage(), f.Read, 0.2); !v.Armed || !v.NeverRead {
		t.Fatalf("never read: %+v", v)
	}
	f.Read = true
	f.Take()
	paint(buf, image.Rect(0, 0, 16, 16), 0xff)
	if v := View(f.Damage(), f.Read, 0.2); v.Armed {
		t.Fatalf("one tile repainted: %+v", v)
	}
	paint(buf, image.Rect(0, 0, 320, 160), 0x80)
	if v := View(f.Damage(), f.Read, 0.2); !v.Armed || v.Damage < 0.5 {
		t.Fatalf("half the screen repainted: %+v", v)
	}
	f.Take()
	buf.Resize(200, 100)
	if v := View(f.Damage(), f.Read, 0.2); !v.Armed || v.Reason != "the screen was resized since the last read" {
		t.Fatalf("resized: %+v", v)
	}
}

// TestCheckGeometry: each refusal is its own code, and a point inside the
// current generation's screen passes.
func TestCheckGeometry(t *testing.T) {
	gen := func(g uint64) *uint64 { return &g }
	for _, c := range []struct {
		gen  *uint64
		cur  uint64
		pt   [2]int
		want wire.Code
	}{
		{nil, 3, [2]int{1, 1}, wire.Unfenced},
		{gen(3), 0, [2]int{1, 1}, wire.NotReady},
		{gen(2), 3, [2]int{1, 1}, wire.GeometryChanged},
		{gen(3), 3, [2]int{100, 1}, wire.OutOfBounds},
		{gen(3), 3, [2]int{-1, 1}, wire.OutOfBounds},
		{gen(3), 3, [2]int{99, 49}, ""},
	} {
		if got := code(CheckGeometry("vnc-1", c.gen, c.cur, 100, 50, c.pt)); got != c.want {
			t.Errorf("gen %v cur %d point %v: %q, want %q", c.gen, c.cur, c.pt, got, c.want)
		}
	}
}
