package bitmap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"math/rand/v2"
	"testing"
)

// encodeRaw lays native pixels (wire order) out as an uncompressed bitmap,
// scanlines padded to four bytes unless tight.
func encodeRaw(px []uint32, w, h, bpp int, tight bool) []byte {
	size := map[int]int{8: 1, 15: 2, 16: 2, 24: 3, 32: 4}[bpp]
	row := w * size
	if !tight {
		row = (row + 3) &^ 3
	}
	out := make([]byte, row*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], px[y*w+x])
			copy(out[y*row+x*size:], b[:size])
		}
	}
	return out
}

func TestRawRoundTrip(t *testing.T) {
	pal := testPalette()
	rng := rand.New(rand.NewPCG(4, 4))
	for _, bpp := range []int{8, 15, 16, 24, 32} {
		for name, im := range testImages(bpp, rng) {
			for _, tight := range []bool{false, true} {
				src := encodeRaw(im.px, im.w, im.h, bpp, tight)
				got := make([]byte, 4*im.w*im.h)
				if err := DecodeRaw(src, im.w, im.h, bpp, pal, got, 4*im.w); err != nil {
					t.Fatalf("%d bpp %s tight=%v: %v", bpp, name, tight, err)
				}
				if want := expectRGBA(im.px, im.w, im.h, bpp, pal); !bytes.Equal(got, want) {
					t.Fatalf("%d bpp %s tight=%v: differ at byte %d", bpp, name, tight, firstDiff(got, want))
				}
			}
		}
	}
}

func TestRawVectors(t *testing.T) {
	// 3x2 at 24 bpp: rows of 9 bytes padded to 12, bottom row first.
	src := []byte{
		1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, // bottom: BGR triples
		10, 20, 30, 40, 50, 60, 70, 80, 90, 0, 0, 0,
	}
	got := make([]byte, 24)
	if err := DecodeRaw(src, 3, 2, 24, nil, got, 12); err != nil {
		t.Fatal(err)
	}
	want := []byte{30, 20, 10, 255, 60, 50, 40, 255, 90, 80, 70, 255, 3, 2, 1, 255, 6, 5, 4, 255, 9, 8, 7, 255}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	// 32 bpp: the fourth byte is ignored, output is opaque.
	got = make([]byte, 4)
	if err := DecodeRaw([]byte{1, 2, 3, 0}, 1, 1, 32, nil, got, 4); err != nil || !bytes.Equal(got, []byte{3, 2, 1, 255}) {
		t.Fatalf("32 bpp: %v %v", got, err)
	}
}

func TestRawRejects(t *testing.T) {
	dst := make([]byte, 64)
	for _, tt := range []struct {
		name       string
		src        []byte
		w, h, bpp  int
		wantCorrup bool
	}{
		{"short", make([]byte, 11), 3, 1, 24, true},
		{"between tight and padded", make([]byte, 10), 3, 1, 24, true},
		{"long", make([]byte, 13), 3, 1, 24, true},
		{"depth", make([]byte, 12), 3, 1, 12, true},
		{"height 0", nil, 3, 0, 24, true},
		{"8 bpp without palette", make([]byte, 4), 3, 1, 8, false},
	} {
		err := DecodeRaw(tt.src, tt.w, tt.h, tt.bpp, nil, dst, 16)
		if err == nil || errors.Is(err, ErrCorrupt) != tt.wantCorrup {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
}

func FuzzRaw(f *testing.F) {
	f.Add(make([]byte, 12), uint16(3), uint16(1), uint8(24))
	f.Add(make([]byte, 8), uint16(2), uint16(2), uint8(16))
	pal := testPalette()
	f.Fuzz(func(t *testing.T, src []byte, w, h uint16, bpp uint8) {
		W, H := int(w%300)+1, int(h%300)+1
		dst := make([]byte, 4*W*H)
		if err := DecodeRaw(src, W, H, int(bpp), pal, dst, 4*W); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error not ErrCorrupt: %v", err)
		}
	})
}

func pixelAt(img *image.RGBA, x, y int) [4]byte {
	o := img.PixOffset(x, y)
	return [4]byte(img.Pix[o : o+4])
}

func TestPointerMonochrome(t *testing.T) {
	// 3x2, 1 bpp, rows padded to 2 bytes, bottom row first. Bottom row:
	// XOR 1,0,1 AND 0,1,1 -> white, transparent, inverted (black).
	// Top row: XOR 0,0,0 AND 0,0,1 -> black, black, transparent.
	xor := []byte{0b101_00000, 0, 0b000_00000, 0}
	and := []byte{0b011_00000, 0, 0b001_00000, 0}
	img, err := DecodePointer(1, 3, 2, xor, and, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]int][4]byte{
		{0, 1}: {255, 255, 255, 255}, {1, 1}: {0, 0, 0, 0}, {2, 1}: {0, 0, 0, 255},
		{0, 0}: {0, 0, 0, 255}, {1, 0}: {0, 0, 0, 255}, {2, 0}: {0, 0, 0, 0},
	}
	for p, c := range want {
		if got := pixelAt(img, p[0], p[1]); got != c {
			t.Errorf("pixel %v = %v, want %v", p, got, c)
		}
	}
}

func TestPointerColour(t *testing.T) {
	// 2x1 at 24 bpp: XOR row of 6 bytes (already even); AND row 2 bytes.
	xor := []byte{0, 0, 255, 0, 0, 0} // red, black
	and := []byte{0b01_000000, 0}     // second pixel masked: transparent
	img, err := DecodePointer(24, 2, 1, xor, and, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := pixelAt(img, 0, 0); got != [4]byte{255, 0, 0, 255} {
		t.Errorf("red = %v", got)
	}
	if got := pixelAt(img, 1, 0); got != [4]byte{0, 0, 0, 0} {
		t.Errorf("masked = %v", got)
	}

	// 32 bpp with real alpha keeps it; the AND mask is then ignored.
	img, err = DecodePointer(32, 1, 1, []byte{10, 20, 30, 0x80}, []byte{0x80, 0}, nil)
	if err != nil || pixelAt(img, 0, 0) != [4]byte{30, 20, 10, 0x80} {
		t.Errorf("32 bpp alpha: %v %v", img, err)
	}
	// 32 bpp with zero alpha everywhere falls back to the AND mask.
	img, err = DecodePointer(32, 2, 1, []byte{10, 20, 30, 0, 0, 0, 0, 0}, []byte{0b01_000000, 0}, nil)
	if err != nil || pixelAt(img, 0, 0) != [4]byte{30, 20, 10, 255} || pixelAt(img, 1, 0) != [4]byte{} {
		t.Errorf("32 bpp no alpha: %v %v", img.Pix, err)
	}
	// 16 bpp, no AND mask: opaque.
	img, err = DecodePointer(16, 1, 1, []byte{0x00, 0xf8}, nil, nil)
	if err != nil || pixelAt(img, 0, 0) != [4]byte{255, 0, 0, 255} {
		t.Errorf("16 bpp: %v %v", img, err)
	}
	// 4 bpp through the palette: high nibble first.
	pal := testPalette()
	img, err = DecodePointer(4, 2, 1, []byte{0x3C, 0}, nil, pal)
	if err != nil || pixelAt(img, 0, 0) != [4]byte{3, 252, 1, 255} || pixelAt(img, 1, 0) != [4]byte{12, 243, 6, 255} {
		t.Errorf("4 bpp: %v %v", img.Pix, err)
	}
	// 8 bpp without a palette reads as grey.
	img, err = DecodePointer(8, 1, 1, []byte{0x40, 0}, nil, nil)
	if err != nil || pixelAt(img, 0, 0) != [4]byte{0x40, 0x40, 0x40, 255} {
		t.Errorf("8 bpp grey: %v %v", img.Pix, err)
	}
}

func TestPointerRejects(t *testing.T) {
	for _, tt := range []struct {
		name      string
		bpp, w, h int
		xor, and  []byte
	}{
		{"xor short", 24, 2, 2, make([]byte, 11), make([]byte, 4)},
		{"and short", 24, 2, 2, make([]byte, 12), make([]byte, 3)},
		{"depth", 2, 2, 2, make([]byte, 12), nil},
		{"zero size", 24, 0, 2, nil, nil},
		{"huge", 1, MaxSide + 1, 1, make([]byte, 4096), nil},
	} {
		if _, err := DecodePointer(tt.bpp, tt.w, tt.h, tt.xor, tt.and, nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
}

func FuzzPointer(f *testing.F) {
	f.Add(uint8(1), uint16(3), uint16(2), []byte{0xa0, 0, 0, 0}, []byte{0x60, 0, 0x20, 0})
	f.Add(uint8(24), uint16(2), uint16(1), []byte{0, 0, 255, 0, 0, 0}, []byte{0x40, 0})
	f.Add(uint8(32), uint16(1), uint16(1), []byte{1, 2, 3, 4}, []byte{})
	f.Fuzz(func(t *testing.T, bpp uint8, w, h uint16, xor, and []byte) {
		img, err := DecodePointer(int(bpp), int(w%512), int(h%512), xor, and, nil)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not ErrCorrupt: %v", err)
			}
			return
		}
		if img.Bounds().Dx() != int(w%512) || img.Bounds().Dy() != int(h%512) {
			t.Fatalf("bounds %v", img.Bounds())
		}
	})
}
