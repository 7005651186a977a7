package recording

import (
	"image"
	"image/color"
	"math"
)

// Colours of drawn acts: the viewer's (pkg/viewer/assets).
var (
	actColour     = color.RGBA{0xff, 0x00, 0xc8, 0xff}
	refusedColour = color.RGBA{0xff, 0x17, 0x44, 0xff}
	labelBg       = color.RGBA{0x00, 0x00, 0x00, 0xff}
	refusedBg     = color.RGBA{0xb7, 0x1c, 0x1c, 0xff}
	white         = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

const (
	glyphW, glyphH = 10, 20
	ringRadius     = 14
)

// drawActs draws acts over a frame: a ring at the point of a pointer act
// (a line to a drag's end), a label for the others, stacked from the top
// left, or from the bottom left with fromBottom (a terminal's first lines
// are the ones most read); refused acts in red.
func drawActs(img *image.RGBA, acts []Act, fromBottom bool) {
	labelY, step := 8, glyphH+10
	if fromBottom {
		labelY, step = img.Rect.Dy()-glyphH-14, -step
	}
	for _, a := range acts {
		c, bg := actColour, labelBg
		if a.Refused() {
			c, bg = refusedColour, refusedBg
		}
		if a.Pointer() {
			x, y := *a.X, *a.Y
			if a.ToX != nil && a.ToY != nil {
				drawLine(img, x, y, *a.ToX, *a.ToY, c)
			}
			drawRing(img, x, y, ringRadius, 3, c)
			fillRect(img, image.Rect(x-2, y-2, x+3, y+3), c)
			if a.Refused() {
				lx := x + ringRadius + 4
				if w := len(a.Outcome)*glyphW + 8; lx+w > img.Rect.Dx() {
					lx = x - ringRadius - 4 - w // keep the code on the frame
				}
				drawLabel(img, lx, y-glyphH, a.Outcome, bg)
			}
			continue
		}
		drawLabel(img, 8, labelY, a.Label(), bg)
		labelY += step
	}
}

// drawLabel writes s in white on a box of colour bg, its top left at x,y.
func drawLabel(img *image.RGBA, x, y int, s string, bg color.RGBA) {
	w := min(len(s), img.Rect.Dx()/glyphW+1)*glyphW + 8
	fillRect(img, image.Rect(x, y, x+w, y+glyphH+6), bg)
	drawText(img, x+4, y+3, s, white, nil)
}

// drawText writes s with the built-in font, its top left at x,y; bg, when
// set, fills each cell first. Characters outside ASCII are drawn as '?'.
func drawText(img *image.RGBA, x, y int, s string, fg color.RGBA, bg *color.RGBA) {
	for _, r := range s {
		if x >= img.Rect.Max.X { // the rest is off the frame, however long
			break
		}
		if bg != nil {
			fillRect(img, image.Rect(x, y, x+glyphW, y+glyphH), *bg)
		}
		if r < 32 || r > 126 {
			r = '?'
		}
		g := &glyphs[r-32]
		for gy := 0; gy < glyphH; gy++ {
			row := g[gy]
			for gx := 0; gx < glyphW; gx++ {
				if row&(0x8000>>gx) != 0 {
					set(img, x+gx, y+gy, fg)
				}
			}
		}
		x += glyphW
	}
}

func set(img *image.RGBA, x, y int, c color.RGBA) {
	if (image.Point{x, y}).In(img.Rect) {
		img.SetRGBA(x, y, c)
	}
}

func fillRect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// drawRing draws a circle of radius r, thick pixels wide, centred at cx,cy.
func drawRing(img *image.RGBA, cx, cy, r, thick int, c color.RGBA) {
	outer, inner := float64(r)+float64(thick)/2, float64(r)-float64(thick)/2
	for y := cy - r - thick; y <= cy+r+thick; y++ {
		for x := cx - r - thick; x <= cx+r+thick; x++ {
			d := math.Hypot(float64(x-cx), float64(y-cy))
			if d <= outer && d >= inner {
				set(img, x, y, c)
			}
		}
	}
}

// drawLine draws the part of a line that is on the frame: an act log may
// hold any coordinates, so the line is clipped before it is walked.
func drawLine(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	fx0, fy0, fx1, fy1, ok := clipLine(img.Rect, float64(x0), float64(y0), float64(x1), float64(y1))
	if !ok {
		return
	}
	n := int(max(math.Abs(fx1-fx0), math.Abs(fy1-fy0), 1))
	for i := 0; i <= n; i++ {
		x := int(math.Round(fx0 + (fx1-fx0)*float64(i)/float64(n)))
		y := int(math.Round(fy0 + (fy1-fy0)*float64(i)/float64(n)))
		fillRect(img, image.Rect(x-1, y-1, x+2, y+2), c)
	}
}

// clipLine is the part of the segment inside r (Liang-Barsky); false when
// none is.
func clipLine(r image.Rectangle, x0, y0, x1, y1 float64) (float64, float64, float64, float64, bool) {
	t0, t1 := 0.0, 1.0
	dx, dy := x1-x0, y1-y0
	for _, e := range [4][2]float64{
		{-dx, x0 - float64(r.Min.X)}, {dx, float64(r.Max.X-1) - x0},
		{-dy, y0 - float64(r.Min.Y)}, {dy, float64(r.Max.Y-1) - y0},
	} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return 0, 0, 0, 0, false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return 0, 0, 0, 0, false
		}
	}
	return x0 + t0*dx, y0 + t0*dy, x0 + t1*dx, y0 + t1*dy, true
}
