package imaging

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// Run with: go test ./pkg/imaging -bench . -benchmem -run '^$'
// Each benchmark reports out-bytes, the size of one encoded picture.

type benchImage struct {
	name string
	img  *image.RGBA
}

func sceneImages() []benchImage {
	return []benchImage{
		{"scene1024x768", desktopScene(1024, 768, 1)},
		{"scene1920x1080", desktopScene(1920, 1080, 1)},
	}
}

func benchEncoders(b *testing.B, images []benchImage) {
	for _, bi := range images {
		img := bi.img
		w, h := img.Rect.Dx(), img.Rect.Dy()
		b.Run(bi.name+"/image-png-default", func(b *testing.B) {
			benchStd(b, img, png.DefaultCompression)
		})
		b.Run(bi.name+"/image-png-bestspeed", func(b *testing.B) {
			benchStd(b, img, png.BestSpeed)
		})
		for _, workers := range []int{1, 2} {
			b.Run(bi.name+"/EncodePNG-"+strconv.Itoa(workers)+"w", func(b *testing.B) {
				benchPNG(b, img.Pix, img.Stride, w, h, PNGOptions{Workers: workers})
			})
		}
		b.Run(bi.name+"/scale0.5+EncodePNG", func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				s := Scale(img.Pix, img.Stride, w, h, 0.5)
				if err := EncodePNG(&buf, s.Pix, s.Stride, s.Rect.Dx(), s.Rect.Dy(), PNGOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "out-bytes")
		})
		b.Run(bi.name+"/crop200x100+EncodePNG", func(b *testing.B) {
			sub, cw, ch, err := Crop(img.Pix, img.Stride, w, h, image.Rect(w/3, h/3, w/3+200, h/3+100))
			if err != nil {
				b.Fatal(err)
			}
			benchPNG(b, sub, img.Stride, cw, ch, PNGOptions{})
		})
		b.Run(bi.name+"/EncodeJPEG-q80", func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := EncodeJPEG(&buf, img.Pix, img.Stride, w, h, 80); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "out-bytes")
		})
	}
}

func benchStd(b *testing.B, img *image.RGBA, level png.CompressionLevel) {
	enc := png.Encoder{CompressionLevel: level}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := enc.Encode(&buf, img); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "out-bytes")
}

func benchPNG(b *testing.B, pix []byte, stride, w, h int, o PNGOptions) {
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := EncodePNG(&buf, pix, stride, w, h, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "out-bytes")
}

// BenchmarkEncodeScene measures the encoders on the synthetic desktops.
func BenchmarkEncodeScene(b *testing.B) {
	benchEncoders(b, sceneImages())
}

// BenchmarkEncodeReal measures them on real X desktops (xterms full of
// text, a clock) captured from Xvnc, and times vncsnapshot fetching the
// same screen over RFB into a JPEG, for comparison.
func BenchmarkEncodeReal(b *testing.B) {
	var images []benchImage
	var servers []*testbed.VNC
	for _, sz := range [][2]int{{1024, 768}, {1920, 1080}} {
		img, v := realDesktop(b, sz[0], sz[1])
		name := "real" + strconv.Itoa(sz[0]) + "x" + strconv.Itoa(sz[1])
		images = append(images, benchImage{name, img})
		servers = append(servers, v)
	}
	benchEncoders(b, images)
	if _, err := exec.LookPath("vncsnapshot"); err != nil {
		return
	}
	for i, v := range servers {
		b.Run(images[i].name+"/vncsnapshot-raw-jpeg", func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "snap.jpg")
			target := "127.0.0.1::" + strconv.Itoa(v.Port)
			for b.Loop() {
				cmd := exec.Command("timeout", "10", "vncsnapshot", "-quiet", "-allowblank", "-encodings", "raw", target, out)
				if msg, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("vncsnapshot: %v\n%s", err, msg)
				}
			}
			if st, err := os.Stat(out); err == nil {
				b.ReportMetric(float64(st.Size()), "out-bytes")
			}
		})
	}
}

// BenchmarkScale measures downscaling alone on the 1080p scene.
func BenchmarkScale(b *testing.B) {
	img := desktopScene(1920, 1080, 1)
	for _, s := range []float64{0.5, 0.25, 0.6} {
		b.Run(strconv.FormatFloat(s, 'f', -1, 64), func(b *testing.B) {
			for b.Loop() {
				Scale(img.Pix, img.Stride, 1920, 1080, s)
			}
		})
	}
}
