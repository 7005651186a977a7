package rfb

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

func newDecoder(w, h int) *decoder {
	d := &decoder{}
	d.s.resize(w, h)
	return d
}

func (d *decoder) at(x, y int) [3]byte {
	p := d.s.row(x, y, 1)
	return [3]byte{p[0], p[1], p[2]}
}

func decodeRects(t *testing.T, d *decoder, enc int32, rects ...[]byte) {
	t.Helper()
	for _, rc := range rects {
		r := newReader(bytes.NewReader(rc[8:]))
		x, y := int(rc[0])<<8|int(rc[1]), int(rc[2])<<8|int(rc[3])
		w, h := int(rc[4])<<8|int(rc[5]), int(rc[6])<<8|int(rc[7])
		if _, err := d.rect(r, x, y, w, h, enc); err != nil {
			t.Fatalf("%s: %v", EncodingName(enc), err)
		}
		if rest := r.src.(*bytes.Reader).Len(); rest != 0 {
			t.Fatalf("%s: %d bytes left unread", EncodingName(enc), rest)
		}
	}
}

func rect(x, y, w, h int, data ...[]byte) []byte {
	return cat(append([][]byte{{byte(x >> 8), byte(x), byte(y >> 8), byte(y), byte(w >> 8), byte(w), byte(h >> 8), byte(h)}}, data...)...)
}

func want(t *testing.T, d *decoder, x, y int, c [3]byte) {
	t.Helper()
	if got := d.at(x, y); got != c {
		t.Errorf("pixel (%d,%d) = %v, want %v", x, y, got, c)
	}
	if a := d.s.row(x, y, 1)[3]; a != 0xff {
		t.Errorf("pixel (%d,%d) alpha %d", x, y, a)
	}
}

var (
	red   = [3]byte{255, 0, 0}
	green = [3]byte{0, 255, 0}
	blue  = [3]byte{0, 0, 255}
	white = [3]byte{255, 255, 255}
)

func TestRawCopyRectRRE(t *testing.T) {
	d := newDecoder(8, 8)
	decodeRects(t, d, EncRaw, rect(1, 1, 2, 1, px(255, 0, 0), px(0, 255, 0)))
	want(t, d, 1, 1, red)
	want(t, d, 2, 1, green)
	// Overlapping move down-right by one.
	decodeRects(t, d, EncCopyRect, rect(2, 2, 2, 1, []byte{0, 1, 0, 1}))
	want(t, d, 2, 2, red)
	want(t, d, 3, 2, green)
	decodeRects(t, d, EncRRE, rect(4, 4, 4, 4, u32(1), px(0, 0, 255), px(255, 255, 255), []byte{0, 1, 0, 1, 0, 2, 0, 2}))
	want(t, d, 4, 4, blue)
	want(t, d, 5, 5, white)
	want(t, d, 6, 6, white)
	want(t, d, 7, 7, blue)
}

func TestHextile(t *testing.T) {
	d := newDecoder(20, 16)
	// Tile 1 (16x16): background red, foreground green, one 2x3 subrect at (1,2).
	t1 := cat([]byte{hexBackground | hexForeground | hexAnySubrects}, px(255, 0, 0), px(0, 255, 0), []byte{1, 0x12, 0x12})
	// Tile 2 (4x16): raw, all blue.
	raw := []byte{hexRaw}
	for i := 0; i < 4*16; i++ {
		raw = append(raw, px(0, 0, 255)...)
	}
	decodeRects(t, d, EncHextile, rect(0, 0, 20, 16, t1, raw))
	want(t, d, 0, 0, red)
	want(t, d, 1, 2, green)
	want(t, d, 2, 4, green)
	want(t, d, 3, 4, red)
	want(t, d, 17, 9, blue)
}

func TestZlibStreamAcrossRects(t *testing.T) {
	d := newDecoder(16, 2)
	var z zenc
	row := bytes.Repeat(px(10, 20, 30), 16)
	c1 := z.chunk(row)
	c2 := z.chunk(row) // refers back into the first chunk's output
	decodeRects(t, d, EncZlib, rect(0, 0, 16, 1, u32(len(c1)), c1), rect(0, 1, 16, 1, u32(len(c2)), c2))
	want(t, d, 15, 1, [3]byte{10, 20, 30})
}

func TestTight(t *testing.T) {
	d := newDecoder(16, 8)
	// Fill.
	decodeRects(t, d, EncTight, rect(0, 0, 16, 8, []byte{tightFill << 4, 1, 2, 3}))
	want(t, d, 5, 5, [3]byte{1, 2, 3})
	// Basic copy, small enough to travel uncompressed (2 pixels = 6 bytes).
	decodeRects(t, d, EncTight, rect(0, 0, 2, 1, []byte{0x00}, []byte{9, 8, 7, 6, 5, 4}))
	want(t, d, 1, 0, [3]byte{6, 5, 4})
	// Basic copy through stream 1.
	var z1 zenc
	data := bytes.Repeat([]byte{40, 50, 60}, 16*2)
	c := z1.chunk(data)
	decodeRects(t, d, EncTight, rect(0, 2, 16, 2, []byte{0x10}, compact(len(c)), c))
	want(t, d, 15, 3, [3]byte{40, 50, 60})
	// Two-colour palette, 1 bit a pixel, rows padded to a byte; stream 2.
	var z2 zenc
	bitsData := []byte{0xA0, 0x00, 0x50, 0x00, 0xff, 0xff, 0, 0, 0, 0, 0, 0} // 16 wide, 6 rows
	c = z2.chunk(bitsData)
	decodeRects(t, d, EncTight, rect(0, 0, 16, 6, []byte{0x60, tightFilterPl, 1}, px(255, 0, 0)[:3], px(0, 0, 255)[:3], compact(len(c)), c))
	want(t, d, 0, 0, blue)
	want(t, d, 1, 0, red)
	want(t, d, 2, 0, blue)
	want(t, d, 1, 1, blue)
	want(t, d, 5, 2, blue)
	// Four-colour palette, a byte a pixel, sent raw (4 pixels < 12 bytes).
	decodeRects(t, d, EncTight, rect(0, 7, 4, 1, []byte{0x40, tightFilterPl, 3}, []byte{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4}, []byte{3, 2, 1, 0}))
	want(t, d, 0, 7, [3]byte{4, 4, 4})
	want(t, d, 3, 7, [3]byte{1, 1, 1})
}

func TestTightGradient(t *testing.T) {
	d := newDecoder(4, 2)
	grad := make([]byte, 4*2*3)
	copy(grad, []byte{100, 110, 120})
	var z zenc
	c := z.chunk(grad)
	decodeRects(t, d, EncTight, rect(0, 0, 4, 2, []byte{0x40, tightFilterGr}, compact(len(c)), c))
	for y := 0; y < 2; y++ {
		for x := 0; x < 4; x++ {
			want(t, d, x, y, [3]byte{100, 110, 120})
		}
	}
}

func TestTightJPEG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = []byte{200, 40, 40, 255}[i%4]
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, &jpeg.Options{Quality: 95})
	d := newDecoder(16, 16)
	decodeRects(t, d, EncTight, rect(0, 0, 16, 16, []byte{tightJPEG << 4}, compact(b.Len()), b.Bytes()))
	got := d.at(8, 8)
	for i, v := range []byte{200, 40, 40} {
		if diff := int(got[i]) - int(v); diff < -8 || diff > 8 {
			t.Fatalf("JPEG pixel %v, want about %v", got, color.RGBA{200, 40, 40, 255})
		}
	}
}

func TestZRLE(t *testing.T) {
	d := newDecoder(70, 4)
	var z zenc
	// Tile 1 (64x4): palette RLE with 2 colours: red run of 10, green single, red rest.
	t1 := cat([]byte{130}, px(255, 0, 0)[:3], px(0, 255, 0)[:3], []byte{0x80, 9, 1, 0x80}, runBytes(64*4-11))
	// Tile 2 (6x4): packed palette of 2, 1 bit a pixel, one byte a row.
	t2 := cat([]byte{2}, px(0, 0, 255)[:3], px(255, 255, 255)[:3], []byte{0x80, 0x40, 0x20, 0x10})
	c := z.chunk(cat(t1, t2))
	decodeRects(t, d, EncZRLE, rect(0, 0, 70, 4, u32(len(c)), c))
	want(t, d, 9, 0, red)
	want(t, d, 10, 0, green)
	want(t, d, 11, 0, red)
	want(t, d, 63, 3, red)
	want(t, d, 64, 0, white)
	want(t, d, 65, 0, blue)
	want(t, d, 65, 1, white)
	// Second rect on the same stream: solid, then plain RLE, then raw.
	c = z.chunk(cat([]byte{1}, px(1, 2, 3)[:3]))
	decodeRects(t, d, EncZRLE, rect(0, 0, 4, 4, u32(len(c)), c))
	want(t, d, 3, 3, [3]byte{1, 2, 3})
	c = z.chunk(cat([]byte{128}, px(9, 9, 9)[:3], runBytes(3), px(8, 8, 8)[:3], runBytes(1)))
	decodeRects(t, d, EncZRLE, rect(0, 0, 2, 2, u32(len(c)), c))
	want(t, d, 1, 1, [3]byte{8, 8, 8})
	want(t, d, 0, 1, [3]byte{9, 9, 9})
	c = z.chunk(cat([]byte{0}, []byte{1, 2, 3, 4, 5, 6}))
	decodeRects(t, d, EncZRLE, rect(10, 3, 2, 1, u32(len(c)), c))
	want(t, d, 11, 3, [3]byte{4, 5, 6})
}

// runBytes encodes a ZRLE run length.
func runBytes(n int) []byte {
	var b []byte
	n--
	for n >= 255 {
		b = append(b, 255)
		n -= 255
	}
	return append(b, byte(n))
}

func TestCursorPseudoEncoding(t *testing.T) {
	d := newDecoder(8, 8)
	var got Cursor
	d.onCursor = func(c Cursor) { got = c }
	data := cat(px(255, 0, 0), px(0, 255, 0), px(0, 0, 255), px(1, 1, 1), []byte{0x80, 0x40})
	if _, err := d.rect(newReader(bytes.NewReader(data)), 1, 0, 2, 2, EncCursor); err != nil {
		t.Fatal(err)
	}
	if got.Hotspot != image.Pt(1, 0) || got.Image == nil {
		t.Fatalf("cursor %+v", got)
	}
	if a := got.Image.RGBAAt(0, 0).A; a != 0xff {
		t.Errorf("masked-in pixel alpha %d", a)
	}
	if a := got.Image.RGBAAt(1, 0).A; a != 0 {
		t.Errorf("masked-out pixel alpha %d", a)
	}
	if c := got.Image.RGBAAt(1, 1); c.R != 1 || c.A != 0xff { // (1,1) is in the mask
		t.Errorf("pixel (1,1) = %v", c)
	}
}

func TestExtClipboardProvide(t *testing.T) {
	msg := provideMessage("Γειά σου\n世界 🙂")
	flags, text, ok, _, err := parseExtClipboard(msg)
	if err != nil || !ok || flags&clipProvide == 0 {
		t.Fatalf("parse: %v %v %x", err, ok, flags)
	}
	if text != "Γειά σου\n世界 🙂" {
		t.Fatalf("text %q", text)
	}
	caps := cat(u32(clipCaps|clipText|clipNotify), u32(1234))
	_, _, _, limit, err := parseExtClipboard(caps)
	if err != nil || limit != 1234 {
		t.Fatalf("caps: %v limit %d", err, limit)
	}
}
