package bitmap

import "encoding/binary"

// DecodeRaw decodes an uncompressed bitmap of bpp 8, 15, 16, 24 or 32
// (MS-RDPBCGR 2.2.9.1.1.3.1.2.2): bottom-up scanlines, each padded to a
// multiple of four bytes. Unpadded scanlines are accepted too when src has
// exactly that length, since some servers omit the padding. 32 bpp pixels
// are B, G, R, X and come out opaque. pal is needed only for 8 bpp.
func DecodeRaw(src []byte, w, h, bpp int, pal *Palette, dst []byte, stride int) error {
	if err := checkDst(w, h, dst, stride); err != nil {
		return err
	}
	size, err := bytesPerPixel(bpp)
	if err != nil {
		return err
	}
	if bpp == 8 {
		if err := needPalette(pal); err != nil {
			return err
		}
	}
	tight := w * size
	padded := (tight + 3) &^ 3
	var rowBytes int
	switch len(src) {
	case padded * h:
		rowBytes = padded
	case tight * h:
		rowBytes = tight
	default:
		return corrupt("uncompressed %dx%d at %d bpp needs %d bytes, got %d", w, h, bpp, padded*h, len(src))
	}
	var table *[256]uint32
	if bpp == 8 {
		table = paletteTable(pal)
	}
	for y := 0; y < h; y++ {
		in := src[y*rowBytes : y*rowBytes+tight]
		o := (h - 1 - y) * stride
		out := dst[o : o+4*w]
		switch bpp {
		case 8:
			for x, v := range in {
				binary.LittleEndian.PutUint32(out[4*x:], table[v])
			}
		case 15:
			for x := 0; x < w; x++ {
				binary.LittleEndian.PutUint32(out[4*x:], rgba555(uint32(binary.LittleEndian.Uint16(in[2*x:]))))
			}
		case 16:
			for x := 0; x < w; x++ {
				binary.LittleEndian.PutUint32(out[4*x:], rgba565(uint32(binary.LittleEndian.Uint16(in[2*x:]))))
			}
		case 24:
			for x := 0; x < w; x++ {
				p := in[3*x : 3*x+3]
				out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = p[2], p[1], p[0], 0xff
			}
		case 32:
			for x := 0; x < w; x++ {
				p := in[4*x : 4*x+4]
				out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = p[2], p[1], p[0], 0xff
			}
		}
	}
	return nil
}
