package imaging

import (
	"bytes"
	"image"
	"testing"
)

// FuzzEncodePNG feeds arbitrary geometry and pixels: the encoder must refuse
// or round-trip exactly, never panic.
func FuzzEncodePNG(f *testing.F) {
	f.Add([]byte{1, 2, 3, 255}, 1, 1, 4, uint8(1), uint8(0))
	f.Add(bytes.Repeat([]byte{9, 8, 7, 255}, 64), 8, 8, 32, uint8(3), uint8(9))
	f.Add(make([]byte, 100), 5, 5, 20, uint8(2), uint8(1))
	f.Add(make([]byte, 10), -1, 0, 0, uint8(0), uint8(0))
	f.Add(make([]byte, 64), 1, 3, 1<<62, uint8(1), uint8(1)) // (h-1)*stride overflows
	f.Fuzz(func(t *testing.T, pix []byte, w, h, stride int, workers, level uint8) {
		if w > 512 || h > 512 {
			return // keep each input cheap; size checks are covered by table tests
		}
		var buf bytes.Buffer
		err := EncodePNG(&buf, pix, stride, w, h, PNGOptions{Workers: int(workers % 9), Level: int(level % 10)})
		if err != nil {
			return
		}
		checkPNG(t, buf.Bytes(), pix, stride, w, h)
	})
}

// FuzzScale checks Scale against the reference filter on arbitrary input.
func FuzzScale(f *testing.F) {
	f.Add(bytes.Repeat([]byte{1, 2, 3, 255}, 36), 6, 6, 0.5)
	f.Add(bytes.Repeat([]byte{200, 2, 3, 255}, 35), 7, 5, 0.33)
	f.Fuzz(func(t *testing.T, pix []byte, w, h int, scale float64) {
		if w <= 0 || h <= 0 || w > 256 || h > 256 || len(pix) < 4*w*h {
			return
		}
		got := Scale(pix, 4*w, w, h, scale)
		if got == nil {
			if scale > 0 && scale <= 1 {
				t.Fatalf("refused %dx%d at %v", w, h, scale)
			}
			return
		}
		src := &image.RGBA{Pix: pix[:4*w*h], Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
		want := naiveBox(src, got.Rect.Dx(), got.Rect.Dy())
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Fatalf("%dx%d at %v differs from the reference", w, h, scale)
		}
	})
}
