package imaging

import (
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
