package jpegenc

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// picture makes a w×h RGBA image from pixel(x, y).
func picture(w, h int, pixel func(x, y int) (r, g, b byte)) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2] = pixel(x, y)
			img.Pix[o+3] = 0xff
		}
	}
	return img
}

// hash is a cheap deterministic pseudo-random value of a position.
func hash(x, y int) uint32 {
	v := uint32(x)*0x9e3779b1 ^ uint32(y)*0x85ebca77
	v ^= v >> 15
	v *= 0x2c1b3c6d
	return v ^ v>>12
}

func noise(x, y int) (byte, byte, byte) {
	v := hash(x, y)
	return byte(v), byte(v >> 8), byte(v >> 16)
}

// photo is smooth gradients with a little noise, as a photograph is.
func photo(x, y int) (byte, byte, byte) {
	n := int(hash(x, y)%9) - 4
	clamp := func(v int) byte { return byte(min(max(v+n, 0), 255)) }
	fx, fy := float64(x), float64(y)
	r := 128 + 100*math.Sin(fx/97+fy/151)
	g := 128 + 90*math.Cos(fx/63-fy/117)
	b := 128 + 80*math.Sin((fx+fy)/201)
	return clamp(int(r)), clamp(int(g)), clamp(int(b))
}

// stripes is 1-pixel red and blue columns: all colour detail, which
// chroma subsampling blurs to purple.
func stripes(x, y int) (byte, byte, byte) {
	if x%2 == 0 {
		return 220, 20, 30
	}
	return 20, 30, 220
}

// psnr is the peak signal-to-noise ratio of got against want over R, G, B.
func psnr(t *testing.T, want *image.RGBA, got image.Image) float64 {
	t.Helper()
	if got.Bounds().Size() != want.Rect.Size() {
		t.Fatalf("decoded %v, want %v", got.Bounds().Size(), want.Rect.Size())
	}
	var sum float64
	b := got.Bounds()
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			r, g, bl, _ := got.At(b.Min.X+x, b.Min.Y+y).RGBA()
			o := want.PixOffset(x, y)
			for i, v := range [3]uint32{r >> 8, g >> 8, bl >> 8} {
				d := float64(v) - float64(want.Pix[o+i])
				sum += d * d
			}
		}
	}
	mse := sum / float64(3*b.Dx()*b.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

func encode(t testing.TB, img *image.RGBA, quality int, sub Subsampling) []byte {
	t.Helper()
	var e Encoder
	out, err := e.EncodeImage(nil, img, quality, sub)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeGo(t *testing.T, data []byte) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image/jpeg cannot decode it: %v", err)
	}
	return img
}

// libjpeg runs ImageMagick (built on libjpeg-turbo) with args; in and
// out are files in dir.
func libjpeg(t *testing.T, prog string, args ...string) string {
	t.Helper()
	testbed.Need(t, prog)
	out, err := exec.Command(prog, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// decodeLibjpeg decodes a JPEG with libjpeg-turbo (through convert, to a
// binary PPM) and reports its sampling factors and quality as identify
// reads them.
func decodeLibjpeg(t *testing.T, data []byte) (img *image.RGBA, sampling string, quality int) {
	t.Helper()
	in := writeFile(t, "in.jpg", data)
	info := strings.Fields(libjpeg(t, "identify", "-format", "%[jpeg:sampling-factor] %Q", in))
	if len(info) != 2 {
		t.Fatalf("identify said %q", info)
	}
	quality, _ = strconv.Atoi(info[1])
	ppm := filepath.Join(filepath.Dir(in), "out.ppm")
	libjpeg(t, "convert", in, ppm)
	raw, err := os.ReadFile(ppm)
	if err != nil {
		t.Fatal(err)
	}
	return readPPM(t, raw), info[0], quality
}

// readPPM reads a binary 8-bit PPM.
func readPPM(t *testing.T, raw []byte) *image.RGBA {
	t.Helper()
	var w, h, maxv int
	r := bytes.NewReader(raw)
	if _, err := fmt.Fscanf(r, "P6\n%d %d\n%d", &w, &h, &maxv); err != nil || maxv != 255 {
		t.Fatalf("not an 8-bit binary PPM: %v (max %d)", err, maxv)
	}
	pix := raw[len(raw)-r.Len()+1:] // one whitespace byte after the header
	if len(pix) != 3*w*h {
		t.Fatalf("PPM of %dx%d has %d bytes of pixels", w, h, len(pix))
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w*h; i++ {
		copy(img.Pix[4*i:4*i+3], pix[3*i:3*i+3])
		img.Pix[4*i+3] = 0xff
	}
	return img
}

// writePPM is img as a binary PPM, libjpeg's input.
func writePPM(img *image.RGBA) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := fmt.Appendf(nil, "P6\n%d %d\n255\n", w, h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			o := img.PixOffset(x, y)
			out = append(out, img.Pix[o:o+3]...)
		}
	}
	return out
}

var samplingNames = map[Subsampling]string{Sub444: "1x1,1x1,1x1", Sub422: "2x1,1x1,1x1", Sub420: "2x2,1x1,1x1"}
