package jpegenc

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
)

var ratios = map[Subsampling]image.YCbCrSubsampleRatio{
	Sub444: image.YCbCrSubsampleRatio444, Sub422: image.YCbCrSubsampleRatio422, Sub420: image.YCbCrSubsampleRatio420,
}

// minPSNR is the least PSNR (dB) of the smooth photo-like picture per
// quality; subsampling costs it little, as the picture's colour is smooth.
var minPSNR = map[int]float64{15: 27, 50: 30, 79: 32, 100: 38}

// TestDecodersAgree: both image/jpeg and libjpeg-turbo read our output as
// the sampling asked for and the quality given, near the source.
func TestDecodersAgree(t *testing.T) {
	src := picture(320, 240, photo)
	for _, sub := range []Subsampling{Sub444, Sub422, Sub420} {
		for q, least := range minPSNR {
			t.Run(fmt.Sprintf("%v/q%d", sub, q), func(t *testing.T) {
				data := encode(t, src, q, sub)
				goImg := decodeGo(t, data)
				if r := goImg.(*image.YCbCr).SubsampleRatio; r != ratios[sub] {
					t.Errorf("image/jpeg reads subsampling %v", r)
				}
				if p := psnr(t, src, goImg); p < least {
					t.Errorf("image/jpeg: PSNR %.1f dB, want at least %.0f", p, least)
				}
				ljImg, sampling, quality := decodeLibjpeg(t, data)
				if sampling != samplingNames[sub] {
					t.Errorf("libjpeg reads sampling %s, want %s", sampling, samplingNames[sub])
				}
				if quality != q {
					t.Errorf("identify estimates quality %d from our tables, want %d", quality, q)
				}
				if p := psnr(t, src, ljImg); p < least {
					t.Errorf("libjpeg: PSNR %.1f dB, want at least %.0f", p, least)
				}
			})
		}
	}
}

// TestFullChromaKeepsColourDetail: 1-pixel red and blue columns keep their
// colours at 4:4:4 and blur to purple at 4:2:0 and 4:2:2, as decoded by
// libjpeg-turbo; so a subsampling silently ignored fails here.
func TestFullChromaKeepsColourDetail(t *testing.T) {
	src := picture(64, 64, stripes)
	got := map[Subsampling]float64{}
	for _, sub := range []Subsampling{Sub444, Sub422, Sub420} {
		img, _, _ := decodeLibjpeg(t, encode(t, src, 79, sub))
		got[sub] = psnr(t, src, img)
	}
	t.Logf("PSNR of the stripes at quality 79: 4:4:4 %.1f dB, 4:2:2 %.1f dB, 4:2:0 %.1f dB", got[Sub444], got[Sub422], got[Sub420])
	if got[Sub444] < 30 {
		t.Errorf("4:4:4 stripes at %.1f dB: colours lost", got[Sub444])
	}
	for _, sub := range []Subsampling{Sub422, Sub420} {
		if got[sub] > got[Sub444]-10 {
			t.Errorf("%v stripes at %.1f dB, not much below 4:4:4's %.1f: is chroma subsampled?", sub, got[sub], got[Sub444])
		}
	}
}

// TestSizeNearLibjpeg: libjpeg-turbo with the same quality, sampling and
// standard Huffman tables makes files within 10% of ours, which shows
// the quantisation matches, and ours are as faithful (PSNR within 0.5 dB).
func TestSizeNearLibjpeg(t *testing.T) {
	for name, pixel := range map[string]func(x, y int) (byte, byte, byte){"photo": photo, "noise": noise} {
		src := picture(256, 192, pixel)
		in := writeFile(t, "in.ppm", writePPM(src))
		for _, sub := range []Subsampling{Sub444, Sub422, Sub420} {
			for _, q := range []int{15, 42, 79, 92} {
				out := filepath.Join(filepath.Dir(in), fmt.Sprintf("lj-%d-%d.jpg", sub, q))
				factor := samplingNames[sub][:3]
				libjpeg(t, "convert", in, "-quality", fmt.Sprint(q), "-sampling-factor", factor,
					"-define", "jpeg:optimize-coding=false", "-strip", out)
				ref, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				data := encode(t, src, q, sub)
				r := float64(len(data)) / float64(len(ref))
				pOurs, pRef := psnr(t, src, decodeGo(t, data)), psnr(t, src, decodeGo(t, ref))
				t.Logf("%s %v q%d: %d bytes, libjpeg %d (%.3fx); PSNR %.2f dB, libjpeg %.2f", name, sub, q, len(data), len(ref), r, pOurs, pRef)
				if r < 0.9 || r > 1.1 {
					t.Errorf("%s %v q%d: %d bytes, libjpeg %d (%.2fx)", name, sub, q, len(data), len(ref), r)
				}
				if pOurs < pRef-0.5 {
					t.Errorf("%s %v q%d: PSNR %.2f dB, libjpeg's %.2f: our DCT or rounding loses detail", name, sub, q, pOurs, pRef)
				}
			}
		}
	}
}

// TestTablesAreLibjpegs: the quantisation and Huffman tables we write
// are byte for byte the ones libjpeg-turbo writes at the same quality.
func TestTablesAreLibjpegs(t *testing.T) {
	src := picture(16, 16, photo)
	in := writeFile(t, "in.ppm", writePPM(src))
	for _, q := range []int{1, 7, 15, 29, 41, 42, 50, 62, 77, 79, 86, 92, 99, 100} {
		out := filepath.Join(filepath.Dir(in), fmt.Sprintf("q%d.jpg", q))
		libjpeg(t, "convert", in, "-quality", fmt.Sprint(q), "-sampling-factor", "2x2",
			"-define", "jpeg:optimize-coding=false", "-strip", out)
		ref, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		ours := encode(t, src, q, Sub420)
		for _, m := range []byte{markDQT, markDHT} {
			want, got := segments(t, ref, m), segments(t, ours, m)
			if !bytes.Equal(want, got) {
				t.Errorf("q%d marker %#x: ours\n%x\nlibjpeg's\n%x", q, m, got, want)
			}
		}
	}
}

// segments is the concatenated payloads of every m segment before the
// scan, split into their tables (libjpeg writes one table a segment).
func segments(t *testing.T, data []byte, m byte) []byte {
	t.Helper()
	var out []byte
	for i := 2; i+4 <= len(data) && data[i] == 0xff && data[i+1] != markSOS; {
		n := int(data[i+2])<<8 | int(data[i+3])
		if data[i+1] == m {
			out = append(out, data[i+4:i+2+n]...)
		}
		i += 2 + n
	}
	if out == nil {
		t.Fatalf("no %#x segment", m)
	}
	return out
}

// TestQualityScaling: IJG's formula at its corners and middle.
func TestQualityScaling(t *testing.T) {
	for _, tc := range []struct {
		q          int
		luma0      uint8 // 16 scaled
		chroma63   uint8 // 99 scaled
		lumaLowest uint8 // 10 scaled
	}{
		{1, 255, 255, 255}, // 5000%: held to 8 bits
		{10, 80, 255, 50},  // 500%
		{25, 32, 198, 20},  // 200%
		{50, 16, 99, 10},   // the tables as they are
		{75, 8, 50, 5},     // 50%: 49.5 rounds up
		{95, 2, 10, 1},     // 10%
		{100, 1, 1, 1},     // 0%: held to 1
	} {
		l, c := scaleQuant(&baseLuma, tc.q), scaleQuant(&baseChroma, tc.q)
		if l[0] != tc.luma0 || c[63] != tc.chroma63 || l[2] != tc.lumaLowest {
			t.Errorf("q%d: luma[0] %d chroma[63] %d luma[2] %d, want %d %d %d", tc.q, l[0], c[63], l[2], tc.luma0, tc.chroma63, tc.lumaLowest)
		}
	}
	if n := len(acLuma.symbols); n != 162 {
		t.Errorf("luma AC table has %d symbols, want 162", n)
	}
	if n := len(acChroma.symbols); n != 162 {
		t.Errorf("chroma AC table has %d symbols, want 162", n)
	}
}

// TestOddSizes: any size decodes to that size, edges and all, in both
// decoders.
func TestOddSizes(t *testing.T) {
	for _, size := range []image.Point{{1, 1}, {7, 9}, {17, 3}, {1025, 769}} {
		src := picture(size.X, size.Y, photo)
		for _, sub := range []Subsampling{Sub444, Sub422, Sub420} {
			t.Run(fmt.Sprintf("%dx%d/%v", size.X, size.Y, sub), func(t *testing.T) {
				data := encode(t, src, 79, sub)
				if p := psnr(t, src, decodeGo(t, data)); p < 30 {
					t.Errorf("image/jpeg: PSNR %.1f dB", p)
				}
				img, sampling, _ := decodeLibjpeg(t, data)
				if sampling != samplingNames[sub] {
					t.Errorf("libjpeg reads sampling %s", sampling)
				}
				if p := psnr(t, src, img); p < 30 {
					t.Errorf("libjpeg: PSNR %.1f dB", p)
				}
			})
		}
	}
}

// TestSubImageAndReuse: a sub-image (offset pixels, a wider stride) and
// one Encoder used for pictures of several sizes and qualities give the
// bytes a fresh Encoder gives, appended after what dst held.
func TestSubImageAndReuse(t *testing.T) {
	big := picture(100, 80, photo)
	var e Encoder
	out := []byte("prefix")
	for _, tc := range []struct {
		r   image.Rectangle
		q   int
		sub Subsampling
	}{{image.Rect(3, 5, 50, 41), 79, Sub444}, {image.Rect(0, 0, 100, 80), 15, Sub420}, {image.Rect(9, 1, 10, 80), 92, Sub422}} {
		sub := big.SubImage(tc.r).(*image.RGBA)
		copyImg := picture(tc.r.Dx(), tc.r.Dy(), func(x, y int) (byte, byte, byte) {
			o := big.PixOffset(tc.r.Min.X+x, tc.r.Min.Y+y)
			return big.Pix[o], big.Pix[o+1], big.Pix[o+2]
		})
		want := encode(t, copyImg, tc.q, tc.sub)
		var err error
		n := len(out)
		out, err = e.EncodeImage(out, sub, tc.q, tc.sub)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out[n:], want) || string(out[:6]) != "prefix" {
			t.Fatalf("%v q%d %v: reused encoder on a sub-image differs from a fresh one on a copy", tc.r, tc.q, tc.sub)
		}
	}
}

// TestRefusesBadInput: every bad input is a coded error, not a panic.
func TestRefusesBadInput(t *testing.T) {
	pix := make([]byte, 4*8*8)
	for _, tc := range []struct {
		name            string
		pix             []byte
		stride, w, h, q int
		sub             Subsampling
		code            string
	}{
		{"zero width", pix, 32, 0, 8, 79, Sub444, "BAD_SIZE"},
		{"negative height", pix, 32, 8, -1, 79, Sub444, "BAD_SIZE"},
		{"too wide", pix, 32, MaxSide + 1, 1, 79, Sub444, "BAD_SIZE"},
		{"quality 0", pix, 32, 8, 8, 0, Sub444, "BAD_QUALITY"},
		{"quality 101", pix, 32, 8, 8, 101, Sub444, "BAD_QUALITY"},
		{"unknown subsampling", pix, 32, 8, 8, 79, Sub420 + 1, "BAD_SUBSAMPLING"},
		{"short buffer", pix[:4*8*8-1], 32, 8, 8, 79, Sub444, "SHORT_PIXELS"},
		{"nil buffer", nil, 32, 8, 8, 79, Sub420, "SHORT_PIXELS"},
		{"stride below width", pix, 28, 8, 8, 79, Sub444, "SHORT_PIXELS"},
		{"huge stride", pix, 1 << 62, 8, 8, 79, Sub444, "SHORT_PIXELS"},
		{"negative stride", pix, -32, 8, 8, 79, Sub444, "SHORT_PIXELS"},
	} {
		var e Encoder
		out, err := e.Encode([]byte("x"), tc.pix, tc.stride, tc.w, tc.h, tc.q, tc.sub)
		var je *Error
		if !errors.As(err, &je) || je.Code != tc.code {
			t.Errorf("%s: got %v, want a %s error", tc.name, err, tc.code)
		}
		if string(out) != "x" {
			t.Errorf("%s: dst changed to %q", tc.name, out)
		}
	}
	var e Encoder
	if _, err := e.EncodeImage(nil, &image.RGBA{}, 79, Sub444); err == nil {
		t.Error("an empty image was encoded")
	}
	hollow := &image.RGBA{Rect: image.Rect(5, 5, 9, 9), Stride: 16, Pix: make([]byte, 16)}
	if _, err := e.EncodeImage(nil, hollow, 79, Sub444); err == nil {
		t.Error("an image whose Pix does not reach its rectangle was encoded")
	}
}

func FuzzEncode(f *testing.F) {
	f.Add(uint16(1), uint16(1), uint8(79), uint8(0), []byte{1, 2, 3, 4})
	f.Add(uint16(17), uint16(3), uint8(15), uint8(2), []byte("some pixels"))
	f.Add(uint16(33), uint16(20), uint8(100), uint8(1), []byte{0xff, 0, 0xff})
	f.Fuzz(func(t *testing.T, w, h uint16, q, sub uint8, seed []byte) {
		w, h = w%200, h%200
		if len(seed) == 0 {
			seed = []byte{0}
		}
		stride := int(w)*4 + int(q%5)
		pix := make([]byte, int(h)*stride)
		for i := range pix {
			pix[i] = seed[i%len(seed)] ^ byte(i*7)
		}
		var e Encoder
		out, err := e.Encode(nil, pix, stride, int(w), int(h), int(q), Subsampling(sub%4))
		valid := w > 0 && h > 0 && q >= 1 && q <= 100 && sub%4 <= 2
		if err != nil {
			if valid {
				t.Fatalf("%dx%d q%d sub %d refused: %v", w, h, q, sub%4, err)
			}
			return
		}
		if !valid {
			t.Fatalf("%dx%d q%d sub %d encoded", w, h, q, sub%4)
		}
		img, err := jpeg.Decode(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("%dx%d q%d sub %d: image/jpeg: %v", w, h, q, sub%4, err)
		}
		if img.Bounds().Dx() != int(w) || img.Bounds().Dy() != int(h) {
			t.Fatalf("decoded %v, want %dx%d", img.Bounds(), w, h)
		}
	})
}
