package bitmap

import (
	"encoding/binary"
	"image"
)

// DecodePointer builds a cursor image from the masks of a pointer update
// (MS-RDPBCGR 2.2.9.1.1.4.4 colour pointer, 2.2.9.1.1.4.5 new pointer and the
// large pointer): a bottom-up XOR mask of xorBpp 1, 4, 8, 15, 16, 24 or 32 and
// a bottom-up 1 bpp AND mask, each scanline padded to an even byte count.
//
// Transparency comes from the AND mask: AND 1 with XOR 0 is transparent. AND
// 1 with a non-zero XOR inverts the screen under it, which an image cannot
// express; such pixels come out opaque black, which reads like the inverted
// I-beam on the light backgrounds where it is common. 32 bpp masks carry
// their own alpha, used as is unless it is zero everywhere (then the AND
// mask decides). An empty AND mask means no mask. pal serves 4 and 8 bpp
// masks; without it their indices read as grey levels.
func DecodePointer(xorBpp, w, h int, xorMask, andMask []byte, pal *Palette) (*image.RGBA, error) {
	if w <= 0 || h <= 0 || w > MaxSide || h > MaxSide {
		return nil, corrupt("pointer size %dx%d outside 1..%d", w, h, MaxSide)
	}
	switch xorBpp {
	case 1, 4, 8, 15, 16, 24, 32:
	default:
		return nil, corrupt("pointer XOR mask depth %d bpp unsupported (want 1, 4, 8, 15, 16, 24 or 32)", xorBpp)
	}
	bits := xorBpp
	if bits == 15 {
		bits = 16 // 15 bpp pixels take two bytes
	}
	xorRow := evenBytes(w * bits)
	andRow := evenBytes(w)
	if len(xorMask) < xorRow*h {
		return nil, corrupt("pointer %dx%d XOR mask at %d bpp needs %d bytes, got %d", w, h, xorBpp, xorRow*h, len(xorMask))
	}
	if len(andMask) != 0 && len(andMask) < andRow*h {
		return nil, corrupt("pointer %dx%d AND mask needs %d bytes, got %d", w, h, andRow*h, len(andMask))
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var table *[256]uint32
	if xorBpp == 4 || xorBpp == 8 {
		table = pointerPalette(pal, xorBpp)
	}
	useAlpha := xorBpp == 32 && hasAlpha(xorMask[:xorRow*h], w, xorRow, h)
	for row := 0; row < h; row++ {
		in := xorMask[row*xorRow : (row+1)*xorRow]
		var and []byte
		if len(andMask) != 0 {
			and = andMask[row*andRow : (row+1)*andRow]
		}
		out := img.Pix[(h-1-row)*img.Stride:]
		for x := 0; x < w; x++ {
			var c uint32 // RGBA word, opaque unless the masks say otherwise
			switch xorBpp {
			case 1:
				if in[x>>3]>>(7-x&7)&1 != 0 {
					c = 0xffffffff
				} else {
					c = opaque
				}
			case 4:
				c = table[in[x>>1]>>(4*(1-x&1))&0x0f]
			case 8:
				c = table[in[x]]
			case 15:
				c = rgba555(uint32(binary.LittleEndian.Uint16(in[2*x:])))
			case 16:
				c = rgba565(uint32(binary.LittleEndian.Uint16(in[2*x:])))
			case 24:
				p := in[3*x:]
				c = packRGBA(uint32(p[2]), uint32(p[1]), uint32(p[0]), 0xff)
			case 32:
				p := in[4*x:]
				a := uint32(0xff)
				if useAlpha {
					a = uint32(p[3])
				}
				c = packRGBA(uint32(p[2]), uint32(p[1]), uint32(p[0]), a)
			}
			if and != nil && and[x>>3]>>(7-x&7)&1 != 0 && !useAlpha {
				if c&^opaque == 0 {
					c = 0 // transparent
				} else {
					c = opaque // screen inversion, shown as black
				}
			}
			binary.LittleEndian.PutUint32(out[4*x:], c)
		}
	}
	return img, nil
}

// evenBytes is the size of a scanline of the given bit count, padded to two
// bytes as pointer masks are.
func evenBytes(bits int) int { return ((bits+7)/8 + 1) &^ 1 }

// hasAlpha reports whether any pixel of a 32 bpp XOR mask has non-zero alpha.
func hasAlpha(mask []byte, w, rowBytes, h int) bool {
	for row := 0; row < h; row++ {
		in := mask[row*rowBytes:]
		for x := 0; x < w; x++ {
			if in[4*x+3] != 0 {
				return true
			}
		}
	}
	return false
}

func pointerPalette(pal *Palette, bpp int) *[256]uint32 {
	if pal != nil {
		return paletteTable(pal)
	}
	var t [256]uint32
	top := uint32(1)<<bpp - 1
	for i := range t {
		g := uint32(i) * 255 / top
		if uint32(i) > top {
			g = 255
		}
		t[i] = packRGBA(g, g, g, 0xff)
	}
	return &t
}
