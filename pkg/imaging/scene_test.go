package imaging

import (
	"image"
	"image/color"
	"math/rand/v2"
)

// desktopScene paints a synthetic but desktop-like picture: a flat
// background, overlapping windows with borders and title bars, rows of
// glyph-like marks standing for text, and a photo-like region of smooth
// gradients with a little sensor noise.
func desktopScene(w, h int, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill(img, img.Bounds(), color.RGBA{0x2e, 0x4a, 0x6b, 0xff})

	// Task bar.
	fill(img, image.Rect(0, h-h/30, w, h), color.RGBA{0x20, 0x20, 0x24, 0xff})

	// Windows.
	for i := 0; i < 4; i++ {
		x0 := rng.IntN(w/2 + 1)
		y0 := rng.IntN(h/2 + 1)
		r := image.Rect(x0, y0, x0+w/3+rng.IntN(w/3+1), y0+h/3+rng.IntN(h/3+1)).Intersect(img.Bounds())
		fill(img, r, color.RGBA{0x88, 0x88, 0x90, 0xff})                                                       // border
		fill(img, r.Inset(1), color.RGBA{0xfa, 0xfa, 0xfa, 0xff})                                              // client area
		fill(img, image.Rect(r.Min.X+1, r.Min.Y+1, r.Max.X-1, r.Min.Y+24), color.RGBA{0xdd, 0xe3, 0xea, 0xff}) // title bar
		text(img, image.Rect(r.Min.X+8, r.Min.Y+34, r.Max.X-8, r.Max.Y-8), rng)
	}

	// Photo-like region (a wallpaper or an image viewer).
	pr := image.Rect(w*3/5, h/10, w*3/5+w/4, h/10+h/4).Intersect(img.Bounds())
	for y := pr.Min.Y; y < pr.Max.Y; y++ {
		for x := pr.Min.X; x < pr.Max.X; x++ {
			fx := float64(x-pr.Min.X) / float64(pr.Dx())
			fy := float64(y-pr.Min.Y) / float64(pr.Dy())
			n := rng.IntN(9) - 4
			img.SetRGBA(x, y, color.RGBA{clamp(40 + 180*fx + float64(n)), clamp(90 + 120*fy + float64(n)), clamp(200 - 150*fx*fy + float64(n)), 0xff})
		}
	}
	return img
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// text draws lines of 7x12 glyph cells filled with random strokes, words
// separated by spaces, like a terminal or a document.
func text(img *image.RGBA, r image.Rectangle, rng *rand.Rand) {
	ink := color.RGBA{0x1a, 0x1a, 0x1a, 0xff}
	for y := r.Min.Y; y+12 <= r.Max.Y; y += 16 {
		lineEnd := r.Min.X + rng.IntN(max(1, r.Dx()))
		for x := r.Min.X; x+7 <= lineEnd; x += 8 {
			if rng.IntN(6) == 0 {
				continue // space between words
			}
			glyph := rng.Uint64()
			for gy := 0; gy < 12; gy++ {
				for gx := 0; gx < 6; gx++ {
					if glyph>>(uint(gy*6+gx)%64)&1 == 1 && (gy+gx)%3 != 0 {
						img.SetRGBA(x+gx, y+gy, ink)
					}
				}
			}
		}
	}
}

func clamp(v float64) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}
