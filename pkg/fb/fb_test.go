package fb

import (
	"errors"
	"image"
	"testing"
	"time"
)

func TestCoverageAndResizes(t *testing.T) {
	b := New()
	if err := b.Resize(100, 50); err != nil {
		t.Fatal(err)
	}
	if b.Resizes() != 1 || b.Coverage() != 0 {
		t.Fatalf("resizes=%d coverage=%v", b.Resizes(), b.Coverage())
	}
	_, _, _, _ = b.BeginWrite()
	b.EndWrite(image.Rect(0, 0, 50, 50), image.Rect(40, 0, 70, 50)) // overlap counted once
	if got := b.Coverage(); got != 0.7 {
		t.Fatalf("coverage %v, want 0.7", got)
	}
	b.BeginWrite()
	b.EndWrite(image.Rect(-10, -10, 200, 200)) // clipped
	if b.Coverage() != 1 {
		t.Fatalf("coverage %v, want 1", b.Coverage())
	}
	b.Resize(100, 50) // same size: a reconnect, not a geometry change
	if b.Resizes() != 1 || b.Coverage() != 0 {
		t.Fatalf("same-size resize: resizes=%d coverage=%v", b.Resizes(), b.Coverage())
	}
	b.Resize(120, 50)
	if b.Resizes() != 2 {
		t.Fatalf("resizes=%d", b.Resizes())
	}
	if err := b.Resize(MaxDim+1, 10); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversize: %v", err)
	}
	// The area limit is the buffer's own, and a refused size changes nothing.
	b.SetMaxPixels(1000 * 1000)
	if err := b.Resize(1001, 1000); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the pixel limit: %v", err)
	}
	if w, h := b.Size(); w != 120 || h != 50 || b.Resizes() != 2 {
		t.Fatalf("after a refused resize: %dx%d, resizes %d", w, h, b.Resizes())
	}
	if err := b.Resize(1000, 1000); err != nil {
		t.Fatal(err)
	}
}

func TestTrackerCountsTilesOnce(t *testing.T) {
	b := New()
	b.Resize(160, 160) // 10x10 tiles
	tr := b.NewTracker()
	defer tr.Close()
	for i := 0; i < 1000; i++ { // a blinking cursor
		b.BeginWrite()
		b.EndWrite(image.Rect(3, 3, 9, 12))
	}
	d := tr.Take()
	if d.Share != 0.01 || d.Bounds != image.Rect(3, 3, 9, 12) {
		t.Fatalf("damage %+v", d)
	}
	b.BeginWrite()
	b.EndWrite(image.Rect(0, 0, 80, 160))
	if d := tr.Peek(); d.Share != 0.5 {
		t.Fatalf("share %v", d.Share)
	}
	if d := tr.Take(); d.Share != 0.5 || tr.Peek().Share != 0 {
		t.Fatalf("take did not clear: %+v", d)
	}
}

func TestSnapshotAndChanged(t *testing.T) {
	b := New()
	b.Resize(4, 3)
	ch := b.Changed()
	pix, stride, _, _ := b.BeginWrite()
	copy(pix[1*stride+2*4:], []byte{10, 20, 30, 255})
	b.EndWrite(image.Rect(2, 1, 3, 2))
	select {
	case <-ch:
	default:
		t.Fatal("Changed not closed by damage")
	}
	img, seq := b.Snapshot(image.Rect(1, 1, 4, 3))
	if seq != b.Seq() || img.Bounds() != image.Rect(0, 0, 3, 2) {
		t.Fatalf("snapshot bounds %v", img.Bounds())
	}
	if c := img.RGBAAt(1, 0); c.R != 10 || c.G != 20 || c.B != 30 || c.A != 255 {
		t.Fatalf("pixel %v", c)
	}
}

func TestTrackerTakeRects(t *testing.T) {
	b := New()
	tr := b.NewTracker()
	defer tr.Close()
	b.Resize(100, 40) // 7x3 tiles, the last column and row partial
	if rects, resized := tr.TakeRects(); !resized || len(rects) != 3 || rects[0] != image.Rect(0, 0, 100, 16) || rects[2] != image.Rect(0, 32, 100, 40) {
		t.Fatalf("first take after resize: %v %v", rects, resized)
	}
	b.BeginWrite()
	b.EndWrite(image.Rect(1, 1, 2, 2), image.Rect(40, 20, 70, 22), image.Rect(99, 39, 100, 40))
	rects, resized := tr.TakeRects()
	want := []image.Rectangle{image.Rect(0, 0, 16, 16), image.Rect(32, 16, 80, 32), image.Rect(96, 32, 100, 40)}
	if resized || len(rects) != len(want) {
		t.Fatalf("rects %v resized %v", rects, resized)
	}
	for i := range want {
		if rects[i] != want[i] {
			t.Fatalf("rect %d = %v, want %v", i, rects[i], want[i])
		}
	}
	if rects, _ := tr.TakeRects(); len(rects) != 0 || tr.Peek().Share != 0 {
		t.Fatalf("take did not clear: %v", rects)
	}
}

// A buffer flipped between a big and a tiny size keeps one array (nothing
// is allocated per flip), and Free leaves nothing to read.
func TestResizeFlipsReuseOneArray(t *testing.T) {
	b := New()
	first := func() *byte {
		var p *byte
		b.Read(func(pix []byte, _, _, _ int, _ uint64) { p = &pix[:1][0] })
		return p
	}
	if err := b.Resize(1024, 1024); err != nil {
		t.Fatal(err)
	}
	big := first()
	for range 5 {
		b.Resize(1, 1)
		if first() != big {
			t.Fatal("a shrink right after a resize allocated a new array")
		}
		b.Resize(1024, 1024)
		if first() != big {
			t.Fatal("growing back allocated a new array")
		}
	}
	tr := b.NewTracker()
	b.Free()
	if w, h := b.Size(); w != 0 || h != 0 {
		t.Fatalf("freed buffer is %dx%d", w, h)
	}
	if rects, resized := tr.TakeRects(); len(rects) != 0 || !resized {
		t.Fatalf("after Free a tracker reports %v, resized %v", rects, resized)
	}
	b.Read(func(pix []byte, _, w, h int, _ uint64) {
		if pix != nil || w != 0 || h != 0 {
			t.Fatalf("freed buffer still reads %d bytes, %dx%d", len(pix), w, h)
		}
	})
}

// Trim keeps a slice that is not oversized, and keeps an oversized one's
// pixels while the size is fresh.
func TestTrimWaitsForTheSizeToHold(t *testing.T) {
	p := make([]byte, 4, 64)
	copy(p, "abcd")
	if q := Trim(p, time.Now()); &q[0] != &p[0] {
		t.Fatal("trimmed while the size was fresh")
	}
	q := Trim(p, time.Now().Add(-2*shrinkAfter))
	if cap(q) != 4 || string(q) != "abcd" {
		t.Fatalf("trimmed to cap %d, %q", cap(q), q)
	}
}
