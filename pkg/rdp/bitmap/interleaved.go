package bitmap

import "encoding/binary"

// Order codes of interleaved RLE (MS-RDPBCGR 2.2.9.1.1.3.1.2.4). Regular
// orders carry a 3-bit code and a 5-bit length, lite orders a 4-bit code and
// a 4-bit length; codes 0xF0 and above fill the whole header byte.
const (
	codeBGRun         = 0x0
	codeFGRun         = 0x1
	codeFGBGImage     = 0x2
	codeColorRun      = 0x3
	codeColorImage    = 0x4
	codeSetFGFGRun    = 0xC
	codeSetFGFGBG     = 0xD
	codeDitheredRun   = 0xE
	codeMegaBGRun     = 0xF0
	codeMegaFGRun     = 0xF1
	codeMegaFGBG      = 0xF2
	codeMegaColorRun  = 0xF3
	codeMegaColorImg  = 0xF4
	codeMegaSetFGRun  = 0xF6
	codeMegaSetFGBG   = 0xF7
	codeMegaDithered  = 0xF8
	codeSpecialFGBG1  = 0xF9
	codeSpecialFGBG2  = 0xFA
	codeWhite         = 0xFD
	codeBlack         = 0xFE
	maskSpecialFGBG1  = 0x03
	maskSpecialFGBG2  = 0x05
	regularLengthBias = 32 // added to the extra length byte of regular runs
	liteLengthBias    = 16 // added to the extra length byte of lite runs
)

// rleDecoder walks the output in wire order (bottom scanline first) while
// writing native pixel words into dst rows top-down; the previous wire
// scanline is therefore the dst row one stride below the current one.
type rleDecoder struct {
	src    []byte
	dst    []byte
	stride int
	w      int
	size   int // bytes per pixel on the wire

	bottom int // dst offset of the first wire scanline (the bottom row)
	rowOff int // dst offset of the current scanline
	x      int // column of the next pixel
	left   int // pixels not yet written
	total  int
}

// DecodeInterleaved decodes an interleaved RLE bitmap of bpp 8, 15, 16 or 24.
// src is the RLE stream after any compressed-data header (TS_CD_HEADER),
// w is the width from the bitmap header (already padded by the server), and
// pal is needed only for 8 bpp.
func DecodeInterleaved(src []byte, w, h, bpp int, pal *Palette, dst []byte, stride int) error {
	if err := checkDst(w, h, dst, stride); err != nil {
		return err
	}
	if bpp == 32 {
		return corrupt("interleaved RLE has no 32 bpp form; 32 bpp bitmaps are planar (DecodePlanar)")
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
	d := rleDecoder{src: src, dst: dst, stride: stride, w: w, size: size,
		bottom: (h - 1) * stride, rowOff: (h - 1) * stride, left: w * h, total: w * h}
	if err := d.run(whitePixel(bpp)); err != nil {
		return err
	}
	convertRows(dst, w, h, stride, bpp, pal)
	return nil
}

func whitePixel(bpp int) uint32 {
	switch bpp {
	case 8:
		return 0xff
	case 15:
		return 0x7fff
	case 16:
		return 0xffff
	}
	return 0xffffff
}

func (d *rleDecoder) run(white uint32) error {
	fg := white
	insertFG := false
	inFirst := true
	for len(d.src) > 0 {
		// The first-scanline rules apply to whole orders: an order that
		// starts on the first scanline keeps them even past its end.
		firstLine := d.rowOff == d.bottom
		if inFirst && !firstLine {
			// Leaving the first scanline also drops a pending foreground insert.
			inFirst, insertFG = false, false
		}
		hdr := d.src[0]
		code, n, err := d.order(hdr)
		if err != nil {
			return err
		}
		wasBG := insertFG
		insertFG = false
		switch code {
		case codeBGRun, codeMegaBGRun:
			if err := d.bgRun(n, firstLine, wasBG, fg); err != nil {
				return err
			}
			insertFG = true
		case codeFGRun, codeMegaFGRun:
			if err := d.fgRun(n, firstLine, fg); err != nil {
				return err
			}
		case codeSetFGFGRun, codeMegaSetFGRun:
			if fg, err = d.pixel(); err != nil {
				return err
			}
			if err := d.fgRun(n, firstLine, fg); err != nil {
				return err
			}
		case codeDitheredRun, codeMegaDithered:
			a, err := d.pixel()
			if err != nil {
				return err
			}
			b, err := d.pixel()
			if err != nil {
				return err
			}
			if err := d.dithered(n, a, b); err != nil {
				return err
			}
		case codeColorRun, codeMegaColorRun:
			c, err := d.pixel()
			if err != nil {
				return err
			}
			if err := d.fill(n, c); err != nil {
				return err
			}
		case codeFGBGImage, codeMegaFGBG:
			if err := d.fgbgMasks(n, firstLine, fg); err != nil {
				return err
			}
		case codeSetFGFGBG, codeMegaSetFGBG:
			if fg, err = d.pixel(); err != nil {
				return err
			}
			if err := d.fgbgMasks(n, firstLine, fg); err != nil {
				return err
			}
		case codeColorImage, codeMegaColorImg:
			if err := d.colorImage(n); err != nil {
				return err
			}
		case codeSpecialFGBG1:
			if err := d.fgbg(8, firstLine, fg, []byte{maskSpecialFGBG1}); err != nil {
				return err
			}
		case codeSpecialFGBG2:
			if err := d.fgbg(8, firstLine, fg, []byte{maskSpecialFGBG2}); err != nil {
				return err
			}
		case codeWhite:
			if err := d.fill(1, white); err != nil {
				return err
			}
		case codeBlack:
			if err := d.fill(1, 0); err != nil {
				return err
			}
		}
	}
	if d.left != 0 {
		return corrupt("RLE stream ended with %d of %d pixels missing", d.left, d.total)
	}
	return nil
}

// order reads an order header and its run length, consuming them from src.
// The length counts pixels, except for dithered runs (pairs of pixels).
func (d *rleDecoder) order(hdr byte) (code int, n int, err error) {
	s := d.src
	switch {
	case hdr&0xC0 != 0xC0: // regular: 3-bit code
		code = int(hdr >> 5)
		n = int(hdr & 0x1F)
		switch code {
		case codeFGBGImage:
			if n == 0 {
				if len(s) < 2 {
					return 0, 0, corrupt("truncated FGBG image length")
				}
				n, s = int(s[1])+1, s[2:]
			} else {
				n, s = n*8, s[1:]
			}
		case codeBGRun, codeFGRun, codeColorRun, codeColorImage:
			if n == 0 {
				if len(s) < 2 {
					return 0, 0, corrupt("truncated run length after order 0x%02x", hdr)
				}
				n, s = int(s[1])+regularLengthBias, s[2:]
			} else {
				s = s[1:]
			}
		default:
			return 0, 0, corrupt("unknown RLE order header 0x%02x", hdr)
		}
	case hdr&0xF0 != 0xF0: // lite: 4-bit code
		code = int(hdr >> 4)
		n = int(hdr & 0x0F)
		if code == codeSetFGFGBG {
			if n == 0 {
				if len(s) < 2 {
					return 0, 0, corrupt("truncated FGBG image length")
				}
				n, s = int(s[1])+1, s[2:]
			} else {
				n, s = n*8, s[1:]
			}
		} else { // SET_FG_FG_RUN, DITHERED_RUN
			if n == 0 {
				if len(s) < 2 {
					return 0, 0, corrupt("truncated run length after order 0x%02x", hdr)
				}
				n, s = int(s[1])+liteLengthBias, s[2:]
			} else {
				s = s[1:]
			}
		}
	default: // whole-byte codes
		code = int(hdr)
		switch code {
		case codeMegaBGRun, codeMegaFGRun, codeMegaFGBG, codeMegaColorRun, codeMegaColorImg,
			codeMegaSetFGRun, codeMegaSetFGBG, codeMegaDithered:
			if len(s) < 3 {
				return 0, 0, corrupt("truncated 16-bit run length after order 0x%02x", hdr)
			}
			n, s = int(binary.LittleEndian.Uint16(s[1:])), s[3:]
		case codeSpecialFGBG1, codeSpecialFGBG2:
			n, s = 8, s[1:]
		case codeWhite, codeBlack:
			n, s = 1, s[1:]
		default:
			return 0, 0, corrupt("unknown RLE order header 0x%02x", hdr)
		}
	}
	d.src = s
	return code, n, nil
}

// pixel reads one pixel value from src.
func (d *rleDecoder) pixel() (uint32, error) {
	s := d.src
	if len(s) < d.size {
		return 0, corrupt("truncated pixel value in RLE stream")
	}
	var v uint32
	switch d.size {
	case 1:
		v = uint32(s[0])
	case 2:
		v = uint32(binary.LittleEndian.Uint16(s))
	default:
		v = uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16
	}
	d.src = s[d.size:]
	return v, nil
}

// reserve checks that n more pixels fit in the bitmap.
func (d *rleDecoder) reserve(n int) error {
	if n > d.left {
		return corrupt("RLE run of %d pixels overruns the bitmap by %d", n, n-d.left)
	}
	return nil
}

// span returns the dst bytes for the next min(n, rest of scanline) pixels and
// the matching bytes of the previous wire scanline (nil on the first one).
func (d *rleDecoder) span(n int) (cur, above []byte) {
	k := min(n, d.w-d.x)
	o := d.rowOff + 4*d.x
	cur = d.dst[o : o+4*k : o+4*k]
	if d.rowOff != d.bottom {
		above = d.dst[o+d.stride : o+d.stride+4*k : o+d.stride+4*k]
	}
	return cur, above
}

// advance moves past k written pixels, wrapping to the next scanline up.
func (d *rleDecoder) advance(k int) {
	d.left -= k
	d.x += k
	if d.x == d.w {
		d.x = 0
		d.rowOff -= d.stride
	}
}

func (d *rleDecoder) fill(n int, v uint32) error {
	if err := d.reserve(n); err != nil {
		return err
	}
	for n > 0 {
		cur, _ := d.span(n)
		for i := 0; i+4 <= len(cur); i += 4 {
			binary.LittleEndian.PutUint32(cur[i:], v)
		}
		k := len(cur) / 4
		d.advance(k)
		n -= k
	}
	return nil
}

// bgRun writes background: black on the first scanline, else the pixel of
// the previous scanline. A background run that directly follows another one
// starts with one foreground pixel, since the encoder would otherwise have
// merged the two runs.
func (d *rleDecoder) bgRun(n int, firstLine, insertFG bool, fg uint32) error {
	if insertFG {
		if err := d.reserve(1); err != nil {
			return err
		}
		if err := d.fgRun(1, firstLine, fg); err != nil {
			return err
		}
		n--
	}
	if n <= 0 {
		return nil
	}
	if firstLine {
		return d.fill(n, 0)
	}
	if err := d.reserve(n); err != nil {
		return err
	}
	for n > 0 {
		cur, above := d.span(n)
		if above == nil {
			return corrupt("RLE background run refers to a missing scanline")
		}
		copy(cur, above)
		k := len(cur) / 4
		d.advance(k)
		n -= k
	}
	return nil
}

// fgRun writes the foreground colour: fg itself on the first scanline, else
// the previous scanline's pixel XOR fg.
func (d *rleDecoder) fgRun(n int, firstLine bool, fg uint32) error {
	if firstLine {
		return d.fill(n, fg)
	}
	if err := d.reserve(n); err != nil {
		return err
	}
	for n > 0 {
		cur, above := d.span(n)
		if above == nil {
			return corrupt("RLE foreground run refers to a missing scanline")
		}
		for i := 0; i+4 <= len(cur); i += 4 {
			binary.LittleEndian.PutUint32(cur[i:], binary.LittleEndian.Uint32(above[i:])^fg)
		}
		k := len(cur) / 4
		d.advance(k)
		n -= k
	}
	return nil
}

// dithered writes n pairs of alternating pixels a, b.
func (d *rleDecoder) dithered(n int, a, b uint32) error {
	n *= 2
	if err := d.reserve(n); err != nil {
		return err
	}
	j := 0
	for n > 0 {
		cur, _ := d.span(n)
		for i := 0; i+4 <= len(cur); i += 4 {
			v := a
			if j&1 == 1 {
				v = b
			}
			binary.LittleEndian.PutUint32(cur[i:], v)
			j++
		}
		k := len(cur) / 4
		d.advance(k)
		n -= k
	}
	return nil
}

// fgbgMasks reads the bit masks of an n-pixel FGBG image and draws it.
func (d *rleDecoder) fgbgMasks(n int, firstLine bool, fg uint32) error {
	nb := (n + 7) / 8
	if len(d.src) < nb {
		return corrupt("FGBG image needs %d mask bytes, %d left", nb, len(d.src))
	}
	masks := d.src[:nb]
	d.src = d.src[nb:]
	return d.fgbg(n, firstLine, fg, masks)
}

// fgbg draws n pixels chosen by bit masks (least significant bit first): a
// set bit is foreground, a clear bit background, as in fgRun and bgRun.
func (d *rleDecoder) fgbg(n int, firstLine bool, fg uint32, masks []byte) error {
	if err := d.reserve(n); err != nil {
		return err
	}
	j := 0
	for n > 0 {
		cur, above := d.span(n)
		if !firstLine && above == nil {
			return corrupt("RLE FGBG image refers to a missing scanline")
		}
		for i := 0; i+4 <= len(cur); i += 4 {
			var v uint32
			if !firstLine {
				v = binary.LittleEndian.Uint32(above[i:])
			}
			if masks[j>>3]>>(j&7)&1 != 0 {
				v ^= fg
			}
			binary.LittleEndian.PutUint32(cur[i:], v)
			j++
		}
		k := len(cur) / 4
		d.advance(k)
		n -= k
	}
	return nil
}

// colorImage copies n literal pixels.
func (d *rleDecoder) colorImage(n int) error {
	if err := d.reserve(n); err != nil {
		return err
	}
	if len(d.src) < n*d.size {
		return corrupt("color image of %d pixels needs %d bytes, %d left", n, n*d.size, len(d.src))
	}
	for n > 0 {
		cur, _ := d.span(n)
		s := d.src
		switch d.size {
		case 1:
			for i := 0; i+4 <= len(cur); i += 4 {
				binary.LittleEndian.PutUint32(cur[i:], uint32(s[i/4]))
			}
		case 2:
			for i := 0; i+4 <= len(cur); i += 4 {
				binary.LittleEndian.PutUint32(cur[i:], uint32(binary.LittleEndian.Uint16(s[i/2:])))
			}
		default:
			for i := 0; i+4 <= len(cur); i += 4 {
				p := s[3*i/4:]
				binary.LittleEndian.PutUint32(cur[i:], uint32(p[0])|uint32(p[1])<<8|uint32(p[2])<<16)
			}
		}
		k := len(cur) / 4
		d.src = s[k*d.size:]
		d.advance(k)
		n -= k
	}
	return nil
}
