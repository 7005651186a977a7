package ocr

import (
	"image"
)

// gray is an 8-bit luma copy of a framebuffer area.
type gray struct {
	pix  []uint8
	w, h int
	// detail marks the pixels that are part of neither a horizontal run
	// of one value at least colGap long nor a vertical one at least
	// tallRun long: glyphs and the paper right around them, but not a
	// window's paper, borders, a root window or a rule across a terminal.
	// A row or column with no detail is blank, whatever colours it
	// crosses, so overlapping windows of different colours still part.
	detail []bool
}

// tallRun is the vertical run that is a border, not a glyph's stroke (UI
// glyphs are at most about 20 pixels high).
const tallRun = 28

func (g *gray) markDetail() {
	w, h := g.w, g.h
	d := make([]bool, w*h)
	for y := 0; y < h; y++ {
		row := g.pix[y*w : (y+1)*w]
		for x := 0; x < w; {
			e := x + 1
			for e < w && row[e] == row[x] {
				e++
			}
			if e-x < colGap {
				for i := x; i < e; i++ {
					d[y*w+i] = true
				}
			}
			x = e
		}
	}
	start := make([]int32, w) // where each column's current vertical run began
	clear := func(x, y0, y1 int) {
		if y1-y0 >= tallRun {
			for y := y0; y < y1; y++ {
				d[y*w+x] = false
			}
		}
	}
	for y := 1; y <= h; y++ {
		for x := 0; x < w; x++ {
			if y == h || g.pix[y*w+x] != g.pix[(y-1)*w+x] {
				clear(x, int(start[x]), y)
				start[x] = int32(y)
			}
		}
	}
	g.detail = d
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
	g.markDetail()
	return g
}

// rowBlank reports whether row y holds no detail over [x0, x1).
func (g *gray) rowBlank(y, x0, x1 int) bool {
	// One value over the columns and the column left and right of them
	// too, as colBlank: the top bar of an E, a 7 or a T exactly as wide as
	// its block is one value over the block, but it is not paper (xcalc's
	// "7" lost its bar and read "f", its "E" read nothing).
	if g.rowUniform(y, max(x0-1, 0), min(x1+1, g.w)) {
		return true
	}
	if g.detail == nil {
		return false
	}
	for _, d := range g.detail[y*g.w+x0 : y*g.w+x1] {
		if d {
			return false
		}
	}
	return true
}

// colBlank reports whether column x holds no detail over [y0, y1).
func (g *gray) colBlank(x, y0, y1 int) bool {
	// One value over the rows and the row above and below them too: a
	// glyph's stem exactly as high as its band (an r starting a word of
	// x-height letters) is one value over the band, but it is not paper.
	if g.colUniform(x, max(y0-1, 0), min(y1+1, g.h)) {
		return true
	}
	if g.detail == nil {
		return false
	}
	for y := y0; y < y1; y++ {
		if g.detail[y*g.w+x] {
			return false
		}
	}
	return true
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

// blocks cuts r into blocks of content separated by blank rows (no detail:
// see gray.detail), or by runs of at least colGap blank columns, recursively (an
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
	if bands := g.bands(r); len(bands) > 1 {
		for _, b := range bands {
			out = g.blocks(image.Rect(r.Min.X, b[0], r.Max.X, b[1]), out, depth+1)
		}
		return out
	}
	// Vertical cuts: runs of colGap blank columns.
	split := false
	start, run := r.Min.X, 0
	for x := r.Min.X; x < r.Max.X; x++ {
		if g.colBlank(x, r.Min.Y, r.Max.Y) {
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

// Bands of rows too thin to hold a glyph alone (trim drops them).
const (
	thinBand = 5
	thinGap  = 3 // the most blank rows between a thin band and its line
)

// bands cuts r (trimmed) at blank rows into runs of rows [y0, y1). A band
// too thin to hold a glyph joins the band above it, or else below, when
// at most thinGap rows apart: an underscore under a line with no
// descenders is parted from its letters by a blank row, and alone it
// would be dropped (`tudurebe_fa49.fz` read as two words).
func (g *gray) bands(r image.Rectangle) [][2]int {
	var out [][2]int
	start := r.Min.Y
	for y := r.Min.Y; y <= r.Max.Y; y++ {
		if y < r.Max.Y && !g.rowBlank(y, r.Min.X, r.Max.X) {
			continue
		}
		if y > start {
			out = append(out, [2]int{start, y})
		}
		start = y + 1
	}
	for i := 0; i < len(out); i++ {
		b := out[i]
		if b[1]-b[0] >= thinBand {
			continue
		}
		switch {
		case i > 0 && b[0]-out[i-1][1] <= thinGap && out[i-1][1]-out[i-1][0] >= thinBand:
			out[i-1][1] = b[1]
		case i+1 < len(out) && out[i+1][0]-b[1] <= thinGap && out[i+1][1]-out[i+1][0] >= thinBand:
			out[i+1][0] = b[0]
		default:
			continue
		}
		out = append(out[:i], out[i+1:]...)
		i--
	}
	return out
}

// trim drops blank rows and columns at r's edges.
func (g *gray) trim(r image.Rectangle) image.Rectangle {
	for r.Min.Y < r.Max.Y && g.rowBlank(r.Min.Y, r.Min.X, r.Max.X) {
		r.Min.Y++
	}
	for r.Max.Y > r.Min.Y && g.rowBlank(r.Max.Y-1, r.Min.X, r.Max.X) {
		r.Max.Y--
	}
	for r.Min.X < r.Max.X && g.colBlank(r.Min.X, r.Min.Y, r.Max.Y) {
		r.Min.X++
	}
	for r.Max.X > r.Min.X && g.colBlank(r.Max.X-1, r.Min.Y, r.Max.Y) {
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

// lineExtent measures a block's ink rows: the height of its tallest band
// of rows holding ink, and whether the block is one line of text (one
// band, apart from bands less than half as high: an i's dot, an accent).
func lineExtent(g *gray, r image.Rectangle, paper uint8) (height int, oneLine bool) {
	var bands []int
	run := 0
	for y := r.Min.Y; y <= r.Max.Y; y++ {
		if y < r.Max.Y && g.rowInk(y, r.Min.X, r.Max.X, paper) {
			run++
			continue
		}
		if run > 0 {
			bands = append(bands, run)
		}
		run = 0
	}
	for _, b := range bands {
		height = max(height, b)
	}
	big := 0
	for _, b := range bands {
		if b*2 > height {
			big++
		}
	}
	return height, big == 1
}

// rowInk reports whether row y holds ink (a pixel far from the paper)
// over [x0, x1).
func (g *gray) rowInk(y, x0, x1 int, paper uint8) bool {
	for _, v := range g.pix[y*g.w+x0 : y*g.w+x1] {
		if d := int(v) - int(paper); d > inkDelta || d < -inkDelta {
			return true
		}
	}
	return false
}
