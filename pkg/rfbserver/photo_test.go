package rfbserver

import (
	"image"
	"math/rand/v2"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestSmoothedTextIsNotPhotographic: dense text in an anti-aliased font
// (`ls -lR` in DejaVu Sans Mono, scrolling in a real xterm on a real X
// server)
// has many colours and short runs, like a photograph, but it must stay
// lossless; noise of the same size goes as JPEG. Every tile of the text is
// classified as the planner does.
func TestSmoothedTextIsNotPhotographic(t *testing.T) {
	testbed.Need(t, "Xvnc", "xterm", "import")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	v.Background(t, "xterm", "-fa", "DejaVu Sans Mono", "-fs", "10", "-geometry", "140x45+0+0",
		"-e", "sh", "-c", "while :; do ls -lR /usr/share/doc; done")
	area := image.Rect(0, 64, 960, 640)
	e := &encoder{colours: &colourSet{}}
	// Wait for a screenful of long lines: tiles of smoothed text with more
	// than 64 colours, what made the old test take text for a photograph.
	var text *image.RGBA
	testbed.Eventually(t, 30e9, "the xterm to fill with dense text", func() bool {
		text = v.Capture(t)
		return manyColoured(e.colours, text, area) >= 8
	})
	stride := text.Stride
	for y := area.Min.Y; y+tile <= area.Max.Y; y += tile {
		for x := area.Min.X; x+tile <= area.Max.X; x += tile {
			r := image.Rect(x, y, x+tile, y+tile)
			if e.tilePhotographic(text.Pix, stride, r) {
				t.Errorf("text tile %v taken for a photograph", r)
			}
		}
	}

	noise := image.NewRGBA(image.Rect(0, 0, 256, 256))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise.Pix {
		noise.Pix[i] = byte(rng.IntN(256))
	}
	for y := 0; y < 256; y += tile {
		for x := 0; x < 256; x += tile {
			if r := image.Rect(x, y, x+tile, y+tile); !e.tilePhotographic(noise.Pix, noise.Stride, r) {
				t.Errorf("noise tile %v not taken for a photograph", r)
			}
		}
	}
}

// manyColoured counts the tiles of area with more than 64 colours.
func manyColoured(set *colourSet, img *image.RGBA, area image.Rectangle) int {
	n := 0
	for y := area.Min.Y; y+tile <= area.Max.Y; y += tile {
		for x := area.Min.X; x+tile <= area.Max.X; x += tile {
			set.reset()
			_, many := countRuns(set, img.Pix[y*img.Stride+x*4:], img.Stride, tile, 0, tile, 2)
			if many || len(set.list) > 64 {
				n++
			}
		}
	}
	return n
}
