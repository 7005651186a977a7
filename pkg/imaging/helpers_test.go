package imaging

import (
	"fmt"
	"hash/adler32"
	"image"
	"image/color"
	"image/draw"
	"runtime"
)

func adlerOf(b []byte) uint32 { return adler32.Checksum(b) }

func copyRGBA(src *image.RGBA) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, src.Rect.Dx(), src.Rect.Dy()))
	draw.Draw(dst, dst.Rect, src, src.Rect.Min, draw.Src)
	return dst
}

func colorOf(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 0xff} }

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func runtimeGosched() { runtime.Gosched() }

// Crop narrows pixels to the rectangle r, clipped to the image, without
// copying: the result shares pix and keeps stride. It fails when r misses
// the image entirely.
func Crop(pix []byte, stride, width, height int, r image.Rectangle) (sub []byte, w, h int, err error) {
	if err := checkImage(pix, stride, width, height); err != nil {
		return nil, 0, 0, err
	}
	c := r.Intersect(image.Rect(0, 0, width, height))
	if c.Empty() {
		return nil, 0, 0, fmt.Errorf("imaging: region %v lies outside the %dx%d image", r, width, height)
	}
	start := c.Min.Y*stride + 4*c.Min.X
	end := (c.Max.Y-1)*stride + 4*c.Max.X
	return pix[start:end:end], c.Dx(), c.Dy(), nil
}
