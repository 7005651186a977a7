package viewer

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"testing"
)

// The favicon is an .ico whose one entry is a 32×32 PNG showing the ring.
func TestFavicon(t *testing.T) {
	b := favicon()
	var hdr struct {
		Reserved, Type, Count uint16
		W, H, Colors, _       uint8
		Planes, Bits          uint16
		Size, Offset          uint32
	}
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, &hdr); err != nil {
		t.Fatal(err)
	}
	if hdr.Type != 1 || hdr.Count != 1 || hdr.W != 32 || hdr.H != 32 || int(hdr.Offset+hdr.Size) != len(b) {
		t.Fatalf("icon header %+v for %d bytes", hdr, len(b))
	}
	img, err := png.Decode(bytes.NewReader(b[hdr.Offset:]))
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != 32 || r.Dy() != 32 {
		t.Fatalf("PNG is %v", r)
	}
	if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
		t.Error("the corner is not transparent (the square is not rounded)")
	}
	if r, g, b, _ := img.At(16, 16).RGBA(); r>>8 < 0xf0 || g>>8 > 0x20 || b>>8 < 0xb0 {
		t.Errorf("the centre is %x,%x,%x, not the ring's dot", r>>8, g>>8, b>>8)
	}
}
