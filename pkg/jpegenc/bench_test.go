package jpegenc

import (
	"bytes"
	"image/jpeg"
	"testing"
)

// BenchmarkEncode compares image/jpeg (always 4:2:0) with this encoder at
// 4:2:0, 4:2:2 and 4:4:4 on a 1024x768 picture, at quality 79 (noVNC's default
// level 6 under TigerVNC's table).
//
//	go test -run '^$' -bench BenchmarkEncode -benchmem ./pkg/jpegenc/
func BenchmarkEncode(b *testing.B) {
	for _, pic := range []struct {
		name  string
		pixel func(x, y int) (byte, byte, byte)
	}{{"noise", noise}, {"photo", photo}} {
		img := picture(1024, 768, pic.pixel)
		b.Run(pic.name+"/image-jpeg-420", func(b *testing.B) {
			var buf bytes.Buffer
			b.SetBytes(int64(len(img.Pix)))
			for b.Loop() {
				buf.Reset()
				if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 79}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "jpeg-bytes")
		})
		for _, sub := range []Subsampling{Sub420, Sub422, Sub444} {
			b.Run(pic.name+"/jpegenc-"+map[Subsampling]string{Sub420: "420", Sub422: "422", Sub444: "444"}[sub], func(b *testing.B) {
				var e Encoder
				var out []byte
				b.SetBytes(int64(len(img.Pix)))
				for b.Loop() {
					var err error
					if out, err = e.EncodeImage(out[:0], img, 79, sub); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(out)), "jpeg-bytes")
			})
		}
	}
}
