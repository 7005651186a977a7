package fb

import (
	"image"
	"testing"
)

// TestTrackerFills: fills reach every tracker in the order written, apart
// from the other damage; a later fill covering an earlier one replaces
// it, fills past maxFills fall back to plain damage, and a resize forgets
// them (its cleared pixels are nobody's fill).
func TestTrackerFills(t *testing.T) {
	b := New()
	b.Resize(200, 100)
	tr := b.NewTracker()
	defer tr.Close()
	tr.Take()
	red, blue := [4]byte{255, 0, 0, 255}, [4]byte{0, 0, 255, 255}
	ch := b.Changed()
	b.BeginWrite()
	b.EndWriteFills([]image.Rectangle{image.Rect(5, 5, 9, 9)}, []Fill{{R: image.Rect(10, 10, 50, 40), C: red}, {R: image.Rect(150, 50, 300, 120), C: blue}})
	select {
	case <-ch:
	default:
		t.Fatal("a write of fills did not signal Changed")
	}
	d := tr.Take()
	want := []Fill{{R: image.Rect(10, 10, 50, 40), C: red}, {R: image.Rect(150, 50, 200, 100), C: blue}} // clipped to the frame
	if len(d.Fills) != 2 || d.Fills[0] != want[0] || d.Fills[1] != want[1] {
		t.Fatalf("fills %v, want %v", d.Fills, want)
	}
	if d.Other != image.Rect(5, 5, 9, 9) || d.Bounds != image.Rect(5, 5, 200, 100) {
		t.Fatalf("other %v bounds %v", d.Other, d.Bounds)
	}
	if d := tr.Take(); len(d.Fills) != 0 || !d.Other.Empty() {
		t.Fatalf("take did not clear: %+v", d)
	}

	// A full-frame fill replaces the fills it covers.
	b.BeginWrite()
	b.EndWriteFills(nil, []Fill{{R: image.Rect(0, 0, 20, 20), C: red}})
	b.BeginWrite()
	b.EndWriteFills(nil, []Fill{{R: image.Rect(0, 0, 200, 100), C: blue}})
	if d := tr.Take(); len(d.Fills) != 1 || d.Fills[0].C != blue || !d.Other.Empty() {
		t.Fatalf("after a covering fill: %+v", d)
	}

	// Too many fills: the oldest become plain damage.
	for i := 0; i < maxFills+3; i++ {
		b.BeginWrite()
		b.EndWriteFills(nil, []Fill{{R: image.Rect(i, 0, i+1, 1), C: red}})
	}
	d = tr.Take()
	if len(d.Fills) != maxFills || d.Fills[0].R != image.Rect(3, 0, 4, 1) || d.Other != image.Rect(0, 0, 3, 1) {
		t.Fatalf("overflow: %d fills from %v, other %v", len(d.Fills), d.Fills[0].R, d.Other)
	}

	b.BeginWrite()
	b.EndWriteFills(nil, []Fill{{R: image.Rect(0, 0, 20, 20), C: red}})
	b.Resize(200, 100)
	if d := tr.Take(); len(d.Fills) != 0 || d.Other != image.Rect(0, 0, 200, 100) {
		t.Fatalf("after a resize: %+v", d)
	}
}
