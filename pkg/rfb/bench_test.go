package rfb

import (
	"bytes"
	"testing"
)

// Decoder micro-benchmarks on synthetic 1080p content; the end-to-end
// figures against Xvnc come from TestMeasureEncodings.

func benchRect(b *testing.B, enc int32, w, h int, data func() []byte) {
	d := newDecoder(1920, 1080)
	payload := data()
	b.SetBytes(int64(w * h * 4))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := newReader(bytes.NewReader(payload))
		if _, err := d.rect(r, 0, 0, w, h, enc); err != nil {
			b.Fatal(err)
		}
		if enc == EncZRLE || enc == EncZlib || enc == EncTight {
			d.zrle.reset()
			d.zlib.reset()
			d.tight[0].reset()
		}
	}
}

// textLike is a 1080p image of dark "glyph" strokes on a light background.
func textLike() []byte {
	pix := make([]byte, 0, 1920*1080*3)
	for y := 0; y < 1080; y++ {
		for x := 0; x < 1920; x++ {
			if (x/3+y/5)%7 == 0 && y%18 < 12 {
				pix = append(pix, 20, 20, 20)
			} else {
				pix = append(pix, 240, 240, 235)
			}
		}
	}
	return pix
}

func BenchmarkDecodeRaw1080p(b *testing.B) {
	benchRect(b, EncRaw, 1920, 1080, func() []byte {
		return bytes.Repeat(px(1, 2, 3), 1920*1080)
	})
}

func BenchmarkDecodeZRLE1080pText(b *testing.B) {
	benchRect(b, EncZRLE, 1920, 1080, func() []byte {
		src := textLike()
		var raw []byte
		for ty := 0; ty < 1080; ty += 64 {
			for tx := 0; tx < 1920; tx += 64 {
				th := min(64, 1080-ty)
				raw = append(raw, 0)
				for y := ty; y < ty+th; y++ {
					raw = append(raw, src[(y*1920+tx)*3:(y*1920+tx+64)*3]...)
				}
			}
		}
		var z zenc
		c := z.chunk(raw)
		return cat(u32(len(c)), c)
	})
}

func BenchmarkDecodeTight1080pText(b *testing.B) {
	benchRect(b, EncTight, 1920, 1080, func() []byte {
		var z zenc
		c := z.chunk(textLike())
		return cat([]byte{0x01}, compact(len(c)), c) // reset stream 0, basic copy filter
	})
}
