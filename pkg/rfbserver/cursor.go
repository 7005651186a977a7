package rfbserver

import (
	"image"
	"image/color"
)

// Cursor is a pointer shape: an image whose alpha is the mask, and the
// hotspot inside it.
type Cursor struct {
	Image   *image.RGBA
	Hotspot image.Point
}

// arrow is the plain pointer sent when the caller has no shape: # black
// outline, . white fill.
var arrow = []string{
	"#",
	"##",
	"#.#",
	"#..#",
	"#...#",
	"#....#",
	"#.....#",
	"#......#",
	"#.......#",
	"#........#",
	"#.....#####",
	"#..#..#",
	"#.# #..#",
	"##  #..#",
	"#    #..#",
	"     #..#",
	"      ##",
}

// DefaultCursor is the arrow above.
func DefaultCursor() *Cursor {
	img := image.NewRGBA(image.Rect(0, 0, 11, len(arrow)))
	for y, row := range arrow {
		for x, c := range row {
			switch c {
			case '#':
				img.Set(x, y, color.RGBA{0, 0, 0, 255})
			case '.':
				img.Set(x, y, color.RGBA{255, 255, 255, 255})
			}
		}
	}
	return &Cursor{Image: img}
}

var defaultCursor = DefaultCursor()

// cursor is the shape to show: the machine's live one, else the
// configured one, else the arrow.
func (s *session) cursor() *Cursor {
	if s.cfg.CursorShape != nil {
		if c := s.cfg.CursorShape(); c != nil && c.Image != nil {
			return c
		}
	}
	if c := s.cfg.Cursor; c != nil && c.Image != nil {
		return c
	}
	return defaultCursor
}

// cursorRect is the Cursor pseudo-rectangle: pixels in the viewer's
// format, then a one-bit mask, rows padded to a byte.
func cursorRect(c *Cursor, pf PixelFormat) rectOut {
	b := c.Image.Bounds()
	w, h := b.Dx(), b.Dy()
	data := pf.appendRect(nil, c.Image.Pix, c.Image.Stride, 0, 0, w, h, pf.pixelSize(), 0)
	for y := 0; y < h; y++ {
		var cur byte
		for x := 0; x < w; x++ {
			cur <<= 1
			if c.Image.Pix[y*c.Image.Stride+x*4+3] >= 128 {
				cur |= 1
			}
			if x%8 == 7 {
				data = append(data, cur)
				cur = 0
			}
		}
		if w%8 != 0 {
			data = append(data, cur<<(8-w%8))
		}
	}
	return rectOut{r: image.Rect(c.Hotspot.X, c.Hotspot.Y, c.Hotspot.X+w, c.Hotspot.Y+h), enc: encCursor, data: data}
}
