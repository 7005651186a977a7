package rfbserver

import (
	"encoding/binary"
	"fmt"
)

// PixelFormat is RFB's PIXEL_FORMAT as a viewer asks for it.
type PixelFormat struct {
	BPP, Depth                      uint8
	BigEndian, TrueColour           bool
	RedMax, GreenMax, BlueMax       uint16
	RedShift, GreenShift, BlueShift uint8
}

// defaultFormat is what ServerInit announces: 32 bits, little-endian,
// 0x00RRGGBB, which most viewers keep.
var defaultFormat = PixelFormat{BPP: 32, Depth: 24, TrueColour: true,
	RedMax: 255, GreenMax: 255, BlueMax: 255, RedShift: 16, GreenShift: 8, BlueShift: 0}

func (f PixelFormat) bytes() []byte {
	b := make([]byte, 16)
	b[0], b[1] = f.BPP, f.Depth
	if f.BigEndian {
		b[2] = 1
	}
	if f.TrueColour {
		b[3] = 1
	}
	binary.BigEndian.PutUint16(b[4:], f.RedMax)
	binary.BigEndian.PutUint16(b[6:], f.GreenMax)
	binary.BigEndian.PutUint16(b[8:], f.BlueMax)
	b[10], b[11], b[12] = f.RedShift, f.GreenShift, f.BlueShift
	return b
}

func parsePixelFormat(b []byte) (PixelFormat, error) {
	f := PixelFormat{BPP: b[0], Depth: b[1], BigEndian: b[2] != 0, TrueColour: b[3] != 0,
		RedMax: binary.BigEndian.Uint16(b[4:]), GreenMax: binary.BigEndian.Uint16(b[6:]),
		BlueMax: binary.BigEndian.Uint16(b[8:]), RedShift: b[10], GreenShift: b[11], BlueShift: b[12]}
	if !f.TrueColour {
		return f, fmt.Errorf("colour-map pixel formats are not served; ask for true colour")
	}
	if f.BPP != 8 && f.BPP != 16 && f.BPP != 32 {
		return f, fmt.Errorf("%d bits per pixel is not a valid RFB pixel size", f.BPP)
	}
	for _, s := range []uint8{f.RedShift, f.GreenShift, f.BlueShift} {
		if s >= f.BPP {
			return f, fmt.Errorf("colour shift %d does not fit %d bits per pixel", s, f.BPP)
		}
	}
	return f, nil
}

// pixelSize is the bytes of one PIXEL on the wire.
func (f PixelFormat) pixelSize() int { return int(f.BPP) / 8 }

// cpixel reports ZRLE's compressed pixel: 3 bytes when a 32-bit pixel's
// colour bits all sit in its low or high three bytes, and which bytes of
// the wire PIXEL to keep.
func (f PixelFormat) cpixel() (size, skip int) {
	if f.BPP != 32 || f.Depth > 24 {
		return f.pixelSize(), 0
	}
	all := uint32(f.RedMax)<<f.RedShift | uint32(f.GreenMax)<<f.GreenShift | uint32(f.BlueMax)<<f.BlueShift
	lowFits := all&0xff000000 == 0
	highFits := all&0x000000ff == 0
	switch {
	case lowFits && !f.BigEndian, highFits && f.BigEndian:
		return 3, 0 // the zero byte comes last on the wire
	case lowFits && f.BigEndian, highFits && !f.BigEndian:
		return 3, 1 // the zero byte comes first
	}
	return 4, 0
}

// pixel converts one RGBA mirror pixel to the viewer's format.
func (f PixelFormat) pixel(r, g, b byte) uint32 {
	return uint32(scale(r, f.RedMax))<<f.RedShift | uint32(scale(g, f.GreenMax))<<f.GreenShift |
		uint32(scale(b, f.BlueMax))<<f.BlueShift
}

func scale(v byte, max uint16) uint32 {
	if max == 255 {
		return uint32(v)
	}
	return (uint32(v)*uint32(max) + 127) / 255
}

// put writes a pixel value in wire order; dst has room for pixelSize bytes.
func (f PixelFormat) put(dst []byte, v uint32) {
	switch f.BPP {
	case 8:
		dst[0] = byte(v)
	case 16:
		if f.BigEndian {
			binary.BigEndian.PutUint16(dst, uint16(v))
		} else {
			binary.LittleEndian.PutUint16(dst, uint16(v))
		}
	default:
		if f.BigEndian {
			binary.BigEndian.PutUint32(dst, v)
		} else {
			binary.LittleEndian.PutUint32(dst, v)
		}
	}
}

// appendRect appends the pixels of a w×h rectangle at (x, y) of an RGBA
// image (stride bytes a row) in the viewer's format, cpix bytes each from
// offset skip of the wire PIXEL (the ZRLE CPIXEL rule; pixelSize, 0 for raw).
func (f PixelFormat) appendRect(out, pix []byte, stride, x, y, w, h, cpix, skip int) []byte {
	var tmp [4]byte
	ps := f.pixelSize()
	fast := f == defaultFormat && cpix >= 3
	for row := y; row < y+h; row++ {
		src := pix[row*stride+x*4 : row*stride+(x+w)*4]
		for i := 0; i < len(src); i += 4 {
			if fast { // B, G, R (, 0): the common case without shifts
				out = append(out, src[i+2], src[i+1], src[i])
				if cpix == 4 {
					out = append(out, 0)
				}
				continue
			}
			f.put(tmp[:ps], f.pixel(src[i], src[i+1], src[i+2]))
			out = append(out, tmp[skip:skip+cpix]...)
		}
	}
	return out
}
