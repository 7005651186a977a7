package rfbserver

import (
	"hash/maphash"
	"image"
	"sync/atomic"

	"github.com/dvvhq/dvv/pkg/fb"
)

// fillsSent counts the fills passed on as such (the tests' measure).
var fillsSent atomic.Int64

// applyFills appends a Tight fill for each of the mirror's known fills (in
// the order written, so a later one paints over an earlier one) and
// records them as what the viewer has, without reading the mirror: a row
// segment a fill covers whole hashes as its colour does. A segment it
// covers in part is marked unknown (0, which the diff finds changed) and
// returned among the strips to compare with the mirror, so the pixels
// beside the fill in that tile column are sent as they are now.
func (e *encoder) applyFills(out []rectOut, fills []fb.Fill, pf PixelFormat) ([]rectOut, []image.Rectangle) {
	frame := image.Rect(0, 0, e.w, e.h)
	var strips []image.Rectangle
	var seg [tile * 4]byte
	for _, f := range fills {
		r := f.R.Intersect(frame)
		if r.Empty() {
			continue
		}
		for i := 0; i < len(seg); i += 4 {
			copy(seg[i:i+4], f.C[:])
		}
		colour := uint32(f.C[0])<<16 | uint32(f.C[1])<<8 | uint32(f.C[2])
		out = append(out, rectOut{r: r, enc: encTight, data: pf.appendTPixel([]byte{tightFill}, colour)})
		fillsSent.Add(1)
		for c := r.Min.X / tile; c < (r.Max.X+tile-1)/tile; c++ {
			x0, x1 := c*tile, min((c+1)*tile, e.w)
			sum := uint64(0)
			if r.Min.X <= x0 && x1 <= r.Max.X {
				sum = maphash.Bytes(seed, seg[:(x1-x0)*4])
			} else {
				strips = append(strips, image.Rect(x0, r.Min.Y, x1, r.Max.Y))
			}
			for y := r.Min.Y; y < r.Max.Y; y++ {
				e.sums[y*e.cols+c] = sum
			}
		}
	}
	return out, strips
}
