package bitmap

import (
	"encoding/binary"
	"fmt"
)

// opaque is the alpha byte of a packed RGBA word.
const opaque = 0xff << 24

// packRGBA packs one pixel as a little-endian word whose bytes are R, G, B, A.
func packRGBA(r, g, b, a uint32) uint32 { return r | g<<8 | b<<16 | a<<24 }

// RDP pixel words are little-endian: 15 bpp is x555, 16 bpp is 565, 24 bpp
// is B, G, R in that byte order (so the word is 0xRRGGBB). The 5- and 6-bit
// channels are widened by copying their top bits into the new low bits, so
// full intensity stays 0xff.

func rgba555(v uint32) uint32 {
	r, g, b := v>>10&0x1f, v>>5&0x1f, v&0x1f
	return packRGBA(r<<3|r>>2, g<<3|g>>2, b<<3|b>>2, 0xff)
}

func rgba565(v uint32) uint32 {
	r, g, b := v>>11&0x1f, v>>5&0x3f, v&0x1f
	return packRGBA(r<<3|r>>2, g<<2|g>>4, b<<3|b>>2, 0xff)
}

func rgba888(v uint32) uint32 {
	return v>>16&0xff | v&0xff00 | (v&0xff)<<16 | opaque
}

// paletteTable packs a palette into RGBA words once per bitmap so the pixel
// loops do one table load per pixel.
func paletteTable(pal *Palette) *[256]uint32 {
	var t [256]uint32
	for i, c := range pal {
		t[i] = packRGBA(uint32(c[0]), uint32(c[1]), uint32(c[2]), 0xff)
	}
	return &t
}

// bytesPerPixel maps a colour depth to its size on the wire.
func bytesPerPixel(bpp int) (int, error) {
	switch bpp {
	case 8:
		return 1, nil
	case 15, 16:
		return 2, nil
	case 24:
		return 3, nil
	case 32:
		return 4, nil
	}
	return 0, corrupt("unsupported colour depth %d bpp (want 8, 15, 16, 24 or 32)", bpp)
}

// needPalette reports the caller error of an 8 bpp bitmap without a palette.
func needPalette(pal *Palette) error {
	if pal == nil {
		return fmt.Errorf("rdp bitmap: 8 bpp data needs the palette from the server's palette update; pass it")
	}
	return nil
}

// convertRows rewrites h rows of native pixel words (as left in dst by the
// RLE decoder) into RGBA in place.
func convertRows(dst []byte, w, h, stride, bpp int, pal *Palette) {
	var table *[256]uint32
	if bpp == 8 {
		table = paletteTable(pal)
	}
	for y := 0; y < h; y++ {
		row := dst[y*stride : y*stride+4*w]
		switch bpp {
		case 8:
			for i := 0; i+4 <= len(row); i += 4 {
				binary.LittleEndian.PutUint32(row[i:], table[row[i]])
			}
		case 15:
			for i := 0; i+4 <= len(row); i += 4 {
				binary.LittleEndian.PutUint32(row[i:], rgba555(binary.LittleEndian.Uint32(row[i:])))
			}
		case 16:
			for i := 0; i+4 <= len(row); i += 4 {
				binary.LittleEndian.PutUint32(row[i:], rgba565(binary.LittleEndian.Uint32(row[i:])))
			}
		case 24:
			for i := 0; i+4 <= len(row); i += 4 {
				binary.LittleEndian.PutUint32(row[i:], rgba888(binary.LittleEndian.Uint32(row[i:])))
			}
		}
	}
}
