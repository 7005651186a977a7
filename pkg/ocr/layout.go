package ocr

import (
	"image"
)

// gray is an 8-bit luma copy of a framebuffer area.
type gray struct {
	pix  []uint8
	w, h int
}

func toGray(img *image.RGBA) *gray {
	b := img.Bounds()
	g := &gray{pix: make([]uint8, b.Dx()*b.Dy()), w: b.Dx(), h: b.Dy()}
	for y := 0; y < g.h; y++ {
		row := img.Pix[y*img.Stride:]
		for x := 0; x < g.w; x++ {
			p := row[x*4:]
			g.pix[y*g.w+x] = uint8((299*int(p[0]) + 587*int(p[1]) + 114*int(p[2]) + 500) / 1000)
		}
	}
	return g
}

// rowUniform reports whether row y is one value over [x0, x1).
func (g *gray) rowUniform(y, x0, x1 int) bool {
	if x0 >= x1 {
		return true
	}
	row := g.pix[y*g.w:]
	v := row[x0]
	for x := x0 + 1; x < x1; x++ {
		if row[x] != v {
			return false
		}
	}
	return true
}

// colUniform reports whether column x is one value over [y0, y1).
func (g *gray) colUniform(x, y0, y1 int) bool {
	if y0 >= y1 {
		return true
	}
	v := g.pix[y0*g.w+x]
	for y := y0 + 1; y < y1; y++ {
		if g.pix[y*g.w+x] != v {
			return false
		}
	}
	return true
}

// colGap is the run of blank columns that separates two blocks side by
// side: wider than a word space in UI fonts, narrower than the gap between
// two windows or two columns of a dialog.
const colGap = 14

// maxBlocks bounds the segmentation of a hostile picture (noise).
const maxBlocks = 4096

// blocks cuts r into blocks of content separated by blank (single-value)
// rows, or by runs of at least colGap blank columns, recursively (an
// XY cut). Each block comes back trimmed of its blank margins; wholly
// blank parts are dropped. The engine is then shown each block on its own
// with its own polarity, which is what makes it read a desktop (windows of
// different colours on a dark root) as reliably as a scanned page.
func (g *gray) blocks(r image.Rectangle, out []image.Rectangle, depth int) []image.Rectangle {
	r = g.trim(r)
	if r.Empty() || len(out) >= maxBlocks {
		return out
	}
	if depth > 64 {
		return append(out, r)
	}
	// Horizontal cuts: every blank row ends a band.
	start := r.Min.Y
	split := false
	for y := r.Min.Y; y < r.Max.Y; y++ {
		if g.rowUniform(y, r.Min.X, r.Max.X) {
			if y > start {
				split = true
				out = g.blocks(image.Rect(r.Min.X, start, r.Max.X, y), out, depth+1)
			}
			start = y + 1
		}
	}
	if split {
		if start < r.Max.Y {
			out = g.blocks(image.Rect(r.Min.X, start, r.Max.X, r.Max.Y), out, depth+1)
		}
		return out
	}
	// Vertical cuts: runs of colGap blank columns.
	start, run := r.Min.X, 0
	for x := r.Min.X; x < r.Max.X; x++ {
		if g.colUniform(x, r.Min.Y, r.Max.Y) {
			run++
			continue
		}
		if run >= colGap && x-run > start {
			split = true
			out = g.blocks(image.Rect(start, r.Min.Y, x-run, r.Max.Y), out, depth+1)
			start = x
		}
		run = 0
	}
	if split {
		return g.blocks(image.Rect(start, r.Min.Y, r.Max.X, r.Max.Y), out, depth+1)
	}
	return append(out, r)
}

// trim drops blank rows and columns at r's edges.
func (g *gray) trim(r image.Rectangle) image.Rectangle {
	for r.Min.Y < r.Max.Y && g.rowUniform(r.Min.Y, r.Min.X, r.Max.X) {
		r.Min.Y++
	}
	for r.Max.Y > r.Min.Y && g.rowUniform(r.Max.Y-1, r.Min.X, r.Max.X) {
		r.Max.Y--
	}
	for r.Min.X < r.Max.X && g.colUniform(r.Min.X, r.Min.Y, r.Max.Y) {
		r.Min.X++
	}
	for r.Max.X > r.Min.X && g.colUniform(r.Max.X-1, r.Min.Y, r.Max.Y) {
		r.Max.X--
	}
	if r.Dx() < 3 || r.Dy() < 5 { // too small to hold a glyph
		return image.Rectangle{}
	}
	return r
}

// background is the most common value in r (the block's paper colour).
func (g *gray) background(r image.Rectangle) uint8 {
	var hist [256]int
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for _, v := range g.pix[y*g.w+r.Min.X : y*g.w+r.Max.X] {
			hist[v]++
		}
	}
	best := 0
	for v := range hist {
		if hist[v] > hist[best] {
			best = v
		}
	}
	return uint8(best)
}
