package bitmap

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// testPalette maps index i to (i, 255-i, i/2) so palette mistakes show.
func testPalette() *Palette {
	var p Palette
	for i := range p {
		p[i] = [3]uint8{uint8(i), uint8(255 - i), uint8(i / 2)}
	}
	return &p
}

// expectRGBA converts native wire-order pixels (bottom scanline first) to the
// top-down RGBA the decoders must produce, written out from the pixel format
// definitions rather than with the decoder's own conversion code.
func expectRGBA(px []uint32, w, h, bpp int, pal *Palette) []byte {
	out := make([]byte, 4*w*h)
	// Channels widen by bit replication, as GDI does.
	widen := func(v uint32, bits uint) byte {
		return byte(v<<(8-bits) | v>>(2*bits-8))
	}
	for row := 0; row < h; row++ {
		for x := 0; x < w; x++ {
			v := px[row*w+x]
			var r, g, b byte
			switch bpp {
			case 8:
				r, g, b = pal[v][0], pal[v][1], pal[v][2]
			case 15:
				r, g, b = widen(v>>10&31, 5), widen(v>>5&31, 5), widen(v&31, 5)
			case 16:
				r, g, b = widen(v>>11&31, 5), widen(v>>5&63, 6), widen(v&31, 5)
			case 24, 32:
				r, g, b = byte(v>>16), byte(v>>8), byte(v)
			}
			o := 4 * ((h-1-row)*w + x)
			out[o], out[o+1], out[o+2], out[o+3] = r, g, b, 0xff
		}
	}
	return out
}

func pixelMask(bpp int) uint32 {
	return map[int]uint32{8: 0xff, 15: 0x7fff, 16: 0xffff, 24: 0xffffff, 32: 0xffffff}[bpp]
}

// testImages returns native-pixel images that exercise runs, XOR patterns,
// dithering, literals and odd sizes.
func testImages(bpp int, rng *rand.Rand) map[string]struct {
	w, h int
	px   []uint32
} {
	type img = struct {
		w, h int
		px   []uint32
	}
	mask := pixelMask(bpp)
	white := whitePixel(bpp)
	mk := func(w, h int, f func(x, y int) uint32) img {
		px := make([]uint32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				px[y*w+x] = f(x, y) & mask
			}
		}
		return img{w, h, px}
	}
	palette := make([]uint32, 5)
	for i := range palette {
		palette[i] = rng.Uint32() & mask
	}
	palette[0], palette[1] = 0, white
	return map[string]img{
		"1x1":       mk(1, 1, func(x, y int) uint32 { return 0x1234567 }),
		"row":       mk(37, 1, func(x, y int) uint32 { return uint32(x / 5 * 3) }),
		"column":    mk(1, 19, func(x, y int) uint32 { return uint32(y % 3) }),
		"black":     mk(64, 64, func(x, y int) uint32 { return 0 }),
		"white":     mk(16, 4, func(x, y int) uint32 { return white }),
		"noise":     mk(33, 17, func(x, y int) uint32 { return rng.Uint32() }),
		"fewcolors": mk(64, 20, func(x, y int) uint32 { return palette[rng.IntN(len(palette))] }),
		"text": mk(61, 23, func(x, y int) uint32 {
			if (x*7+y*3)%11 < 3 || (x/3+y)%5 == 0 {
				return palette[2]
			}
			return white
		}),
		"dither": mk(40, 6, func(x, y int) uint32 {
			if (x+y)%2 == 0 {
				return palette[3]
			}
			return palette[4]
		}),
		"xorstripes": mk(24, 12, func(x, y int) uint32 {
			if y%2 == 0 {
				return palette[2]
			}
			return palette[2] ^ white
		}),
		"special": mk(24, 2, func(x, y int) uint32 {
			if y == 0 && (x%8 < 2 && x < 8 || x%8 == 0 || x%8 == 2 && x >= 8) {
				return white
			}
			return 0
		}),
		"gradient": mk(50, 30, func(x, y int) uint32 { return uint32(x*0x010203 + y*0x030201) }),
		"long": mk(300, 300, func(x, y int) uint32 {
			if x > 100 && x < 200 && y > 50 {
				return palette[2]
			}
			return palette[3]
		}),
	}
}

func decodeInterleavedNew(t testing.TB, stream []byte, w, h, bpp int, pal *Palette) ([]byte, error) {
	t.Helper()
	dst := make([]byte, 4*w*h)
	err := DecodeInterleaved(stream, w, h, bpp, pal, dst, 4*w)
	return dst, err
}

func TestInterleavedRoundTrip(t *testing.T) {
	pal := testPalette()
	used := map[string]int{}
	for _, bpp := range []int{8, 15, 16, 24} {
		for seed := uint64(0); seed < 6; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(bpp)))
			for name, im := range testImages(bpp, rng) {
				var encRng *rand.Rand
				if seed > 0 {
					encRng = rand.New(rand.NewPCG(seed, 99))
				}
				stream := encodeRLE(im.px, im.w, bpp, encRng, used)
				got, err := decodeInterleavedNew(t, stream, im.w, im.h, bpp, pal)
				if err != nil {
					t.Fatalf("%d bpp %s seed %d: %v", bpp, name, seed, err)
				}
				if want := expectRGBA(im.px, im.w, im.h, bpp, pal); !bytes.Equal(got, want) {
					t.Fatalf("%d bpp %s seed %d: pixels differ at byte %d", bpp, name, seed, firstDiff(got, want))
				}
			}
		}
	}
	// Every order kind and every length form must have been exercised.
	for _, kind := range []string{"bg", "fg", "color", "image", "setfg", "dither", "fgbg", "setfgbg"} {
		for _, form := range []string{"short", "byte", "mega"} {
			if used[kind+"/"+form] == 0 {
				t.Errorf("round trips never used %s in %s form", kind, form)
			}
		}
	}
	for _, kind := range []string{"special1", "special2", "white", "black"} {
		if used[kind] == 0 {
			t.Errorf("round trips never used %s", kind)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestInterleavedVectors decodes streams written by hand from the order
// descriptions in MS-RDPBCGR 2.2.9.1.1.3.1.2.4 (8 bpp, identity-like palette).
func TestInterleavedVectors(t *testing.T) {
	pal := testPalette()
	tests := []struct {
		name   string
		w, h   int
		stream []byte
		want   []uint32 // native pixels, wire order
	}{
		{"color run then fg run XORs previous line", 4, 2,
			[]byte{0x64, 0x10, 0x24},
			[]uint32{0x10, 0x10, 0x10, 0x10, 0xef, 0xef, 0xef, 0xef}},
		{"two bg runs insert one fg pixel", 4, 1,
			[]byte{0x02, 0x02},
			[]uint32{0, 0, 0xff, 0}},
		{"bg run on second line copies the first", 3, 2,
			[]byte{0x83, 0x01, 0x02, 0x03, 0x03},
			[]uint32{1, 2, 3, 1, 2, 3}},
		{"bg runs across the first line end: no insert after leaving it", 2, 2,
			[]byte{0x02, 0x02},
			[]uint32{0, 0, 0, 0}},
		{"first-line rules last for the whole order", 2, 2,
			[]byte{0x24},
			[]uint32{0xff, 0xff, 0xff, 0xff}},
		{"set fg then fg run", 3, 1,
			[]byte{0xC3, 0x42},
			[]uint32{0x42, 0x42, 0x42}},
		{"lite dithered run with byte length", 36, 1,
			[]byte{0xE0, 0x02, 0x05, 0x06},
			func() []uint32 {
				p := make([]uint32, 36)
				for i := range p {
					p[i] = uint32(5 + i%2)
				}
				return p
			}()},
		{"mega mega color image", 3, 1,
			[]byte{0xF4, 0x03, 0x00, 0x09, 0x08, 0x07},
			[]uint32{9, 8, 7}},
		{"fgbg image on first line: set bit fg, clear bit black", 8, 1,
			[]byte{0x41, 0xA5},
			[]uint32{0xff, 0, 0xff, 0, 0, 0xff, 0, 0xff}},
		{"special fgbg 1 and 2, white, black", 10, 2,
			[]byte{0xF9, 0xFD, 0xFE, 0xFA, 0xFE, 0xFD},
			[]uint32{0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0,
				0x00, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff}}, // the second line XORs the first: 0xff^0xff, 0^0xff
		{"fgbg byte-length form of 3 pixels", 3, 1,
			[]byte{0x40, 0x02, 0x05},
			[]uint32{0xff, 0, 0xff}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeInterleavedNew(t, tt.stream, tt.w, tt.h, 8, pal)
			if err != nil {
				t.Fatal(err)
			}
			if want := expectRGBA(tt.want, tt.w, tt.h, 8, pal); !bytes.Equal(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
		})
	}
}

func TestInterleavedRejects(t *testing.T) {
	pal := testPalette()
	tests := []struct {
		name   string
		w, h   int
		bpp    int
		stream []byte
	}{
		{"run overruns bitmap", 4, 1, 8, []byte{0x65, 0x01}},
		{"stream too short for bitmap", 4, 2, 8, []byte{0x64, 0x01}},
		{"unknown regular code 5", 4, 1, 8, []byte{0xA4}},
		{"unknown mega code", 4, 1, 8, []byte{0xF5, 0, 0}},
		{"truncated mega length", 4, 1, 8, []byte{0xF3, 0x04}},
		{"truncated pixel", 4, 1, 16, []byte{0x64, 0x01}},
		{"truncated fgbg masks", 16, 1, 8, []byte{0x42}},
		{"truncated color image", 4, 1, 24, []byte{0x84, 1, 2, 3}},
		{"32 bpp is planar", 4, 1, 32, []byte{0x64, 1, 2, 3, 4}},
		{"bad depth", 4, 1, 12, []byte{0x64, 1}},
		{"zero width", 0, 1, 8, []byte{0x64, 1}},
		{"too wide", MaxSide + 1, 1, 8, []byte{0x64, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := max(tt.w, 1)
			dst := make([]byte, 4*w*tt.h)
			err := DecodeInterleaved(tt.stream, tt.w, tt.h, tt.bpp, pal, dst, 4*w)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
	// Caller errors are not ErrCorrupt but still errors.
	dst := make([]byte, 16)
	if err := DecodeInterleaved([]byte{0x64, 1}, 4, 1, 8, nil, dst, 16); err == nil || errors.Is(err, ErrCorrupt) {
		t.Fatalf("nil palette: err = %v", err)
	}
	if err := DecodeInterleaved([]byte{0x64, 1}, 4, 2, 8, pal, dst, 16); err == nil {
		t.Fatal("short dst accepted")
	}
	if err := DecodeInterleaved([]byte{0x64, 1}, 4, 1, 8, pal, dst, 12); err == nil {
		t.Fatal("short stride accepted")
	}
}

// TestInterleavedStride checks decoding into a wider destination leaves the
// bytes between rows alone.
func TestInterleavedStride(t *testing.T) {
	px := []uint32{1, 2, 3, 4, 5, 6}
	stream := encodeRLE(px, 3, 8, nil, nil)
	dst := bytes.Repeat([]byte{0xAA}, 20*2)
	if err := DecodeInterleaved(stream, 3, 2, 8, testPalette(), dst, 20); err != nil {
		t.Fatal(err)
	}
	want := expectRGBA(px, 3, 2, 8, testPalette())
	for y := 0; y < 2; y++ {
		if !bytes.Equal(dst[y*20:y*20+12], want[y*12:y*12+12]) {
			t.Fatalf("row %d wrong", y)
		}
		if !bytes.Equal(dst[y*20+12:y*20+20], bytes.Repeat([]byte{0xAA}, 8)) {
			t.Fatalf("row %d padding touched", y)
		}
	}
}

func FuzzInterleaved(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, bpp := range []int{8, 16, 24} {
		for _, im := range testImages(bpp, rng) {
			if im.w*im.h > 4096 {
				continue
			}
			f.Add(encodeRLE(im.px, im.w, bpp, rng, nil), uint16(im.w), uint16(im.h), uint8(bpp))
		}
	}
	f.Add([]byte{0x02, 0x02}, uint16(4), uint16(1), uint8(8))
	pal := testPalette()
	f.Fuzz(func(t *testing.T, stream []byte, w, h uint16, bpp uint8) {
		W, H := int(w%300)+1, int(h%300)+1
		dst := make([]byte, 4*W*H)
		err := DecodeInterleaved(stream, W, H, int(bpp), pal, dst, 4*W)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error not ErrCorrupt: %v", err)
		}
	})
}

func ExampleDecodeInterleaved() {
	// A 2x1 bitmap at 16 bpp: one colour run of two pure-red pixels.
	stream := []byte{0x62, 0x00, 0xf8}
	dst := make([]byte, 2*4)
	if err := DecodeInterleaved(stream, 2, 1, 16, nil, dst, 8); err != nil {
		panic(err)
	}
	fmt.Println(dst)
	// Output: [255 0 0 255 255 0 0 255]
}
