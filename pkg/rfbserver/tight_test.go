package rfbserver

import (
	"image"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// fillBand makes the encoder's band a w×h picture from pixel(x, y).
func fillBand(e *encoder, w, h int, pixel func(x, y int) (r, g, b byte)) {
	e.stride = w * 4
	e.band = make([]byte, e.stride*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			o := y*e.stride + x*4
			e.band[o], e.band[o+1], e.band[o+2] = pixel(x, y)
			e.band[o+3] = 0xff
		}
	}
}

func noise(x, y int) (byte, byte, byte) {
	v := uint32(x*31+y*17) * 2654435761
	return byte(v >> 3), byte(v >> 11), byte(v >> 19)
}

// text is a terminal-like picture: a background, glyph-like strokes and a
// few anti-aliasing shades between them.
func text(x, y int) (byte, byte, byte) {
	switch {
	case y%16 >= 12 || x%9 >= 7:
		return 16, 32, 48
	case (x*7+y*3)%11 < 3:
		s := byte(60 + (x+y)%5*30)
		return s, s, s
	case (x+y)%4 == 0:
		return 230, 230, 230
	}
	return 16, 32, 48
}

// TestTightChoosesByContent: each kind of picture gets the Tight form
// meant for it, text stays lossless at every quality level, and JPEG is
// used only when the viewer named a quality.
func TestTightChoosesByContent(t *testing.T) {
	mono := func(x, y int) (byte, byte, byte) {
		if (x+y)%3 == 0 {
			return 255, 255, 255
		}
		return 0, 0, 0
	}
	solid := func(x, y int) (byte, byte, byte) { return 1, 2, 3 }
	for _, tc := range []struct {
		name    string
		pixel   func(x, y int) (byte, byte, byte)
		quality int
		want    byte // the compression-control byte, reset bits aside
	}{
		{"solid", solid, -1, tightFill},
		{"solid with JPEG allowed", solid, 6, tightFill},
		{"two colours", mono, 6, tightExplicit},
		{"text", text, -1, tightExplicit},
		{"text with JPEG allowed", text, 9, tightExplicit},
		{"text at the lowest quality", text, 0, tightExplicit},
		{"noise without a quality", noise, -1, 0},
		{"noise with a quality", noise, 6, tightJPEG},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e encoder
			fillBand(&e, 256, 64, tc.pixel)
			out := e.tight(defaultFormat, 256, 64, tightOptions{quality: tc.quality, compress: 2}, true, false)
			if got := out[0] &^ 0x0f; got != tc.want {
				t.Fatalf("control byte %#x, want %#x", got, tc.want)
			}
			if tc.name == "two colours" && (out[1] != tightFilterPal || out[2] != 1) {
				t.Fatalf("two colours: filter %d with %d colours, want a 2-colour palette", out[1], out[2]+1)
			}
		})
	}
}

func TestCompactLen(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []byte
	}{
		{0, []byte{0}}, {127, []byte{127}}, {128, []byte{0x80, 1}}, {10000, []byte{0x90, 0x4e}},
		{16383, []byte{0xff, 0x7f}}, {16384, []byte{0x80, 0x80, 1}}, {1<<22 - 1, []byte{0xff, 0xff, 0xff}},
	} {
		if got := appendCompactLen(nil, tc.n); string(got) != string(tc.want) {
			t.Errorf("%d: got %x, want %x", tc.n, got, tc.want)
		}
	}
}

// TestTightJPEGIsClose: with a quality level a photographic area arrives
// as JPEG, near the original (quality 9 is visually lossless), and the
// text beside it arrives exact.
func TestTightJPEGIsClose(t *testing.T) {
	src := fb.New()
	src.Resize(512, 128)
	pix, stride, _, _ := src.BeginWrite()
	for y := 0; y < 128; y++ {
		for x := 0; x < 512; x++ {
			o := y*stride + x*4
			if x < 256 {
				pix[o], pix[o+1], pix[o+2] = text(x, y)
			} else { // smooth but many-coloured, like a photograph
				pix[o], pix[o+1], pix[o+2] = byte(x-256), byte(y*2), byte((x+2*y)/4)
				if (x*13+y*7)%5 == 0 {
					pix[o] ^= 3
				}
			}
			pix[o+3] = 0xff
		}
	}
	src.EndWrite(image.Rect(0, 0, 512, 128))
	c := dial(t, serve(t, Config{Buffer: src}), &rfb.Config{Encodings: []int32{rfb.EncTight, rfb.EncTightQuality0 + 9}})
	waitClose(t, src, c.Framebuffer(), 24)
	if c.Encodings()["Tight"] == 0 {
		t.Fatalf("no Tight rectangle: %v", c.Encodings())
	}
	want, _ := src.Snapshot(image.Rect(0, 0, 256, 128))
	got, _ := c.Framebuffer().Snapshot(image.Rect(0, 0, 256, 128))
	if string(want.Pix) != string(got.Pix) {
		t.Fatal("text next to a photograph did not arrive exact")
	}
}

// waitClose waits until every channel of every pixel is within tol.
func waitClose(t *testing.T, want, got *fb.Buffer, tol int) {
	t.Helper()
	w, h := want.Size()
	for i := 0; ; i++ {
		a, _ := want.Snapshot(image.Rect(0, 0, w, h))
		b, _ := got.Snapshot(image.Rect(0, 0, w, h))
		worst := 256
		if len(a.Pix) == len(b.Pix) {
			worst = 0
			for k := range a.Pix {
				worst = max(worst, abs(int(a.Pix[k])-int(b.Pix[k])))
			}
		}
		if worst <= tol {
			return
		}
		if i == 100 {
			t.Fatalf("the viewer's picture is off by up to %d per channel; want at most %d", worst, tol)
		}
		select {
		case <-got.Changed():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// FuzzTightRoundTrip: any picture sent as lossless Tight (to a viewer
// asking for any pixel layout pkg/rfb decodes) arrives exact, to a viewer
// alone and to two sharing the encoding (stateless zlib). The bytes
// choose the size and a small palette-or-noise picture.
func FuzzTightRoundTrip(f *testing.F) {
	f.Add([]byte{200, 100, 1, 2, 3, 4, 5})
	f.Add([]byte{63, 7, 0, 0})
	f.Add([]byte{255, 255, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 17, 33, 250})
	f.Add([]byte{1, 1, 42})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 3 {
			return
		}
		w, h := int(b[0])%300+1, int(b[1])%200+1
		seed := b[2:]
		src := fb.New()
		src.Resize(w, h)
		pix, stride, _, _ := src.BeginWrite()
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				o := y*stride + x*4
				k := seed[(x/5+y/3)%len(seed)]
				if k&0x80 != 0 { // noise
					pix[o], pix[o+1], pix[o+2] = noise(x+int(k), y)
				} else { // one of up to 128 colours
					pix[o], pix[o+1], pix[o+2] = k*2, k*3, k*5
				}
				pix[o+3] = 0xff
			}
		}
		src.EndWrite(image.Rect(0, 0, w, h))
		addr := serve(t, Config{Buffer: src})
		c := dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncTight}})
		waitSame(t, src, c.Framebuffer(), "tight round trip")
		c2 := dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncTight}})
		c3 := dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncTight}})
		waitSame(t, src, c2.Framebuffer(), "tight round trip, shared")
		waitSame(t, src, c3.Framebuffer(), "tight round trip, shared")
	})
}
