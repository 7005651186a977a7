package imaging

import (
	"bytes"
	"image"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomImage makes noise with opaque alpha, the hardest case for deflate.
func randomImage(w, h int, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 1))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		if i%4 == 3 {
			img.Pix[i] = 0xff
		} else {
			img.Pix[i] = byte(rng.Uint32())
		}
	}
	return img
}

// checkPNG decodes data and compares it pixel for pixel with the RGB of
// pix/stride.
func checkPNG(t *testing.T, data []byte, pix []byte, stride, w, h int) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("DecodeConfig: %v", err)
	}
	if cfg.Width != w || cfg.Height != h {
		t.Fatalf("decoded size %dx%d, want %dx%d", cfg.Width, cfg.Height, w, h)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	rgb, ok := img.(*image.RGBA)
	if !ok {
		t.Fatalf("decoded as %T, want *image.RGBA (colour type 2)", img)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			s := pix[y*stride+4*x:]
			d := rgb.Pix[y*rgb.Stride+4*x:]
			if s[0] != d[0] || s[1] != d[1] || s[2] != d[2] || d[3] != 0xff {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, d[:4], s[:3])
			}
		}
	}
}

func TestEncodePNGRoundTrip(t *testing.T) {
	t.Parallel()
	sizes := [][2]int{{1, 1}, {1, 7}, {7, 1}, {3, 5}, {17, 13}, {255, 3}, {640, 480}, {1023, 767}, {301, 1200}}
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		for _, img := range []*image.RGBA{desktopScene(w, h, 1), randomImage(w, h, 2)} {
			for _, workers := range []int{1, 2, 3, 8} {
				var buf bytes.Buffer
				if err := EncodePNG(&buf, img.Pix, img.Stride, w, h, PNGOptions{Workers: workers}); err != nil {
					t.Fatalf("%dx%d workers %d: %v", w, h, workers, err)
				}
				checkPNG(t, buf.Bytes(), img.Pix, img.Stride, w, h)
			}
		}
	}
}

func TestEncodePNGFiltersAndLevels(t *testing.T) {
	t.Parallel()
	img := desktopScene(333, 777, 3)
	for _, f := range []int{filterNone, filterSub, filterUp, filterPaeth, filterAuto} {
		for _, level := range []int{0, 1, 2, 5, 6, 9} {
			var buf bytes.Buffer
			if err := encodePNG(&buf, img.Pix, img.Stride, 333, 777, PNGOptions{Level: level, Workers: 2}, f); err != nil {
				t.Fatalf("filter %d level %d: %v", f, level, err)
			}
			checkPNG(t, buf.Bytes(), img.Pix, img.Stride, 333, 777)
		}
	}
}

// A sub-image shares its parent's stride; strips must honour it.
func TestEncodePNGStride(t *testing.T) {
	t.Parallel()
	big := desktopScene(900, 700, 4)
	r := image.Rect(13, 29, 13+611, 29+643)
	sub := big.SubImage(r).(*image.RGBA)
	var buf bytes.Buffer
	if err := EncodePNG(&buf, sub.Pix, sub.Stride, r.Dx(), r.Dy(), PNGOptions{Workers: 4}); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, buf.Bytes(), sub.Pix, sub.Stride, r.Dx(), r.Dy())
}

func TestEncodePNGRefuses(t *testing.T) {
	t.Parallel()
	pix := make([]byte, 4*10*10)
	tests := []struct {
		name                  string
		pix                   []byte
		stride, width, height int
		o                     PNGOptions
		want                  string
	}{
		{"zero height", pix, 40, 10, 0, PNGOptions{}, "empty"},
		{"zero width", pix, 40, 0, 10, PNGOptions{}, "empty"},
		{"negative", pix, 40, -1, 10, PNGOptions{}, "empty"},
		{"short stride", pix, 39, 10, 10, PNGOptions{}, "stride"},
		{"short pixels", pix[:399], 40, 10, 10, PNGOptions{}, "bytes of pixels"},
		{"overflowing stride", pix, 1 << 62, 10, 3, PNGOptions{}, "bytes of pixels"},
		{"huge", pix, 40, MaxDim + 1, 1, PNGOptions{}, "exceeds"},
		{"bad level", pix, 40, 10, 10, PNGOptions{Level: 10}, "level"},
		{"negative level", pix, 40, 10, 10, PNGOptions{Level: -1}, "level"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		err := EncodePNG(&buf, tt.pix, tt.stride, tt.width, tt.height, tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: wrote %d bytes before refusing", tt.name, buf.Len())
		}
	}
}

func TestAdlerCombine(t *testing.T) {
	data := randomImage(97, 31, 5).Pix
	for _, cut := range []int{0, 1, 100, 5551, 5552, len(data) - 1, len(data)} {
		a, b := data[:cut], data[cut:]
		got := adlerCombine(adlerOf(a), adlerOf(b), int64(len(b)))
		if want := adlerOf(data); got != want {
			t.Errorf("cut %d: combined %#x, want %#x", cut, got, want)
		}
	}
}

func TestZlibHeader(t *testing.T) {
	for level := 1; level <= 9; level++ {
		h := zlibHeader(level)
		if (uint16(h[0])<<8|uint16(h[1]))%31 != 0 || h[0] != 0x78 {
			t.Errorf("level %d: header %x fails the zlib check", level, h)
		}
	}
}
