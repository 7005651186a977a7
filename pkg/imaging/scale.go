package imaging

import (
	"image"
	"math"
	"math/bits"
	"runtime"
	"sync"
)

// ScaledSize is the size Scale produces for a width×height image: each side
// times scale, rounded, at least 1.
func ScaledSize(width, height int, scale float64) (w, h int) {
	w = max(1, int(math.Round(float64(width)*scale)))
	h = max(1, int(math.Round(float64(height)*scale)))
	return min(w, width), min(h, height)
}

// Scale downsizes RGBA pixels by scale (0 < scale ≤ 1) with an area (box)
// filter: each output pixel is the rounded mean of the source pixels its
// area covers. 0.5 and 0.25 take exact 2×2 and 4×4 fast paths. Scale
// returns nil for an empty image or a scale outside (0, 1]; the caller
// refuses those first. The result is opaque.
func Scale(pix []byte, stride, width, height int, scale float64) *image.RGBA {
	if checkImage(pix, stride, width, height) != nil || !(scale > 0 && scale <= 1) {
		return nil
	}
	ow, oh := ScaledSize(width, height, scale)
	dst := image.NewRGBA(image.Rect(0, 0, ow, oh))
	src := srcImage{pix: pix, stride: stride, width: width, height: height}
	var rows func(y0, y1 int)
	switch {
	case ow == width && oh == height:
		rows = func(y0, y1 int) { copyRows(dst, src, y0, y1) }
	case ow*2 == width && oh*2 == height:
		rows = func(y0, y1 int) { halveRows(dst, src, y0, y1) }
	case ow*4 == width && oh*4 == height:
		rows = func(y0, y1 int) { quarterRows(dst, src, y0, y1) }
	default:
		xs := spans(width, ow)
		ys := spans(height, oh)
		rows = func(y0, y1 int) { boxRows(dst, src, xs, ys, y0, y1) }
	}
	parallelRows(oh, width*height*4, rows)
	return dst
}

// parallelRows runs fn over [0,n) cut into one band per core when the work
// (srcBytes read) is large enough to pay for goroutines.
func parallelRows(n, srcBytes int, fn func(y0, y1 int)) {
	bands := min(runtime.GOMAXPROCS(0), max(1, srcBytes/minStripBytes), n)
	if bands <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < bands; i++ {
		y0, y1 := n*i/bands, n*(i+1)/bands
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(y0, y1)
		}()
	}
	wg.Wait()
}

func copyRows(dst *image.RGBA, src srcImage, y0, y1 int) {
	for y := y0; y < y1; y++ {
		d := dst.Pix[y*dst.Stride : y*dst.Stride+4*src.width]
		copy(d, src.pix[y*src.stride:])
		for i := 3; i < len(d); i += 4 {
			d[i] = 0xff
		}
	}
}

// halveRows averages 2×2 blocks (rounding half up).
func halveRows(dst *image.RGBA, src srcImage, y0, y1 int) {
	ow := dst.Rect.Dx()
	for y := y0; y < y1; y++ {
		a := src.pix[2*y*src.stride : 2*y*src.stride+8*ow]
		b := src.pix[(2*y+1)*src.stride : (2*y+1)*src.stride+8*ow]
		d := dst.Pix[y*dst.Stride : y*dst.Stride+4*ow]
		for x, s := 0, 0; x < len(d); x, s = x+4, s+8 {
			d[x] = byte((uint(a[s]) + uint(a[s+4]) + uint(b[s]) + uint(b[s+4]) + 2) >> 2)
			d[x+1] = byte((uint(a[s+1]) + uint(a[s+5]) + uint(b[s+1]) + uint(b[s+5]) + 2) >> 2)
			d[x+2] = byte((uint(a[s+2]) + uint(a[s+6]) + uint(b[s+2]) + uint(b[s+6]) + 2) >> 2)
			d[x+3] = 0xff
		}
	}
}

// quarterRows averages 4×4 blocks.
func quarterRows(dst *image.RGBA, src srcImage, y0, y1 int) {
	ow := dst.Rect.Dx()
	for y := y0; y < y1; y++ {
		d := dst.Pix[y*dst.Stride : y*dst.Stride+4*ow]
		var r [4][]byte
		for i := range r {
			r[i] = src.pix[(4*y+i)*src.stride : (4*y+i)*src.stride+16*ow]
		}
		for x, s := 0, 0; x < len(d); x, s = x+4, s+16 {
			for c := 0; c < 3; c++ {
				var sum uint
				for i := range r {
					row := r[i][s+c:]
					sum += uint(row[0]) + uint(row[4]) + uint(row[8]) + uint(row[12])
				}
				d[x+c] = byte((sum + 8) >> 4)
			}
			d[x+3] = 0xff
		}
	}
}

// span is the run of source pixels [lo, hi) one output pixel averages.
type span struct{ lo, hi int }

// spans cuts n source pixels into m runs as even as integers allow: output
// pixel i covers [floor(i*n/m), floor((i+1)*n/m)), never empty as m ≤ n.
func spans(n, m int) []span {
	s := make([]span, m)
	for i := range s {
		s[i] = span{i * n / m, (i + 1) * n / m}
	}
	return s
}

// boxRows is the general area filter. Per output row it first sums the
// source rows of its span column by column (a straight pass over memory),
// then sums each output pixel's columns and divides by the area.
func boxRows(dst *image.RGBA, src srcImage, xs, ys []span, y0, y1 int) {
	w := src.width
	acc := make([]uint32, 4*w)
	for y := y0; y < y1; y++ {
		clear(acc)
		for sy := ys[y].lo; sy < ys[y].hi; sy++ {
			row := src.pix[sy*src.stride : sy*src.stride+4*w]
			acc := acc[:len(row)]
			for i, v := range row {
				acc[i] += uint32(v)
			}
		}
		rows := uint64(ys[y].hi - ys[y].lo)
		var divs divisors
		d := dst.Pix[y*dst.Stride : y*dst.Stride+4*len(xs)]
		for x, sp := range xs {
			var r, g, b uint64
			cols := acc[4*sp.lo : 4*sp.hi]
			for p := 0; p+2 < len(cols); p += 4 {
				r += uint64(cols[p])
				g += uint64(cols[p+1])
				b += uint64(cols[p+2])
			}
			div := divs.get(rows * uint64(sp.hi-sp.lo))
			px := d[4*x : 4*x+4 : 4*x+4]
			px[0] = byte(div.round(r))
			px[1] = byte(div.round(g))
			px[2] = byte(div.round(b))
			px[3] = 0xff
		}
	}
}

// divider divides by a fixed area, rounding to nearest, with a multiply
// and a shift where that is exact.
type divider struct {
	area, half uint64
	mul        uint64
	shift      uint
}

// newDivider picks mul = ceil(2^shift/area). The quotient of n+area/2 stays
// exact while (n+area/2)*(mul*area-2^shift) < 2^shift; n ≤ 255*area, so
// 2^shift ≥ 256*area² is enough, and that fits 64-bit products up to an
// area of 2^20. Larger areas divide.
func newDivider(area uint64) divider {
	d := divider{area: area, half: area / 2}
	if area <= 1<<20 {
		bitsArea := uint(64 - leadingZeros64(area-1)) // ceil(log2 area)
		d.shift = 8 + 2*bitsArea
		d.mul = (uint64(1)<<d.shift + area - 1) / area
	}
	return d
}

func (d divider) round(sum uint64) uint64 {
	if d.mul == 0 {
		return (sum + d.half) / d.area
	}
	return ((sum + d.half) * d.mul) >> d.shift
}

// divisors caches the few areas one output row uses (spans differ by at
// most one pixel, so there are two).
type divisors struct {
	a, b divider
}

func (c *divisors) get(area uint64) divider {
	if c.a.area == area {
		return c.a
	}
	if c.b.area == area {
		return c.b
	}
	c.b = c.a
	c.a = newDivider(area)
	return c.a
}

func leadingZeros64(v uint64) int { return bits.LeadingZeros64(v) }
