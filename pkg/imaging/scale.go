package imaging

import (
	"image"
	"math"
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

// boxRows is the general area filter: per output row, sum the source rows
// of its span into an accumulator, then divide each pixel by its area.
func boxRows(dst *image.RGBA, src srcImage, xs, ys []span, y0, y1 int) {
	ow := len(xs)
	acc := make([]uint32, 3*ow)
	for y := y0; y < y1; y++ {
		clear(acc)
		for sy := ys[y].lo; sy < ys[y].hi; sy++ {
			row := src.pix[sy*src.stride:]
			for x, sp := range xs {
				var r, g, b uint32
				for sx := sp.lo; sx < sp.hi; sx++ {
					p := row[4*sx : 4*sx+3]
					r += uint32(p[0])
					g += uint32(p[1])
					b += uint32(p[2])
				}
				acc[3*x] += r
				acc[3*x+1] += g
				acc[3*x+2] += b
			}
		}
		rows := uint32(ys[y].hi - ys[y].lo)
		d := dst.Pix[y*dst.Stride:]
		for x, sp := range xs {
			area := rows * uint32(sp.hi-sp.lo)
			half := area / 2
			d[4*x] = byte((acc[3*x] + half) / area)
			d[4*x+1] = byte((acc[3*x+1] + half) / area)
			d[4*x+2] = byte((acc[3*x+2] + half) / area)
			d[4*x+3] = 0xff
		}
	}
}
