package rfbserver

import (
	"compress/zlib"
	"encoding/binary"
	"image"
)

// zrle encodes rectangle r of the band as ZRLE: 64×64 tiles, each solid,
// packed-palette, run-length or raw, whichever is smallest by a quick
// count, all through the session's one zlib stream.
func (e *encoder) zrle(pf PixelFormat, r image.Rectangle) []byte {
	if e.zw == nil {
		e.zw, _ = zlib.NewWriterLevel(&e.zbuf, zlib.BestSpeed)
	}
	cp, skip := pf.cpixel()
	stride := e.stride
	raw := e.raw[:0]
	var palette []uint32
	for ty := r.Min.Y; ty < r.Max.Y; ty += tile {
		th := min(tile, r.Max.Y-ty)
		for tx := r.Min.X; tx < r.Max.X; tx += tile {
			tw := min(tile, r.Max.X-tx)
			palette = palette[:0]
			runs := 0
			prev := uint32(0)
			for y := ty; y < ty+th; y++ {
				row := e.band[y*stride+tx*4 : y*stride+(tx+tw)*4]
				for i := 0; i < len(row); i += 4 {
					c := uint32(row[i])<<16 | uint32(row[i+1])<<8 | uint32(row[i+2])
					if (y == ty && i == 0) || c != prev {
						runs++
						prev = c
					}
					if len(palette) <= 16 && indexOf(palette, c) < 0 {
						palette = append(palette, c)
					}
				}
			}
			npix := tw * th
			switch {
			case len(palette) == 1:
				raw = append(raw, 1)
				raw = appendCPixel(raw, pf, palette[0], cp, skip)
			case len(palette) <= 16:
				raw = append(raw, byte(len(palette)))
				for _, c := range palette {
					raw = appendCPixel(raw, pf, c, cp, skip)
				}
				raw = e.packed(raw, palette, tx, ty, tw, th)
			case runs*(cp+2) < npix*cp:
				raw = append(raw, 128)
				raw = e.plainRLE(raw, pf, tx, ty, tw, th, cp, skip)
			default:
				raw = append(raw, 0)
				raw = pf.appendRect(raw, e.band, stride, tx, ty, tw, th, cp, skip)
			}
		}
	}
	e.raw = raw
	e.zbuf.Reset()
	e.zw.Write(raw)
	e.zw.Flush()
	e.out = binary.BigEndian.AppendUint32(e.out[:0], uint32(e.zbuf.Len()))
	e.out = append(e.out, e.zbuf.Bytes()...)
	return e.out
}

func indexOf(p []uint32, c uint32) int {
	for i, v := range p {
		if v == c {
			return i
		}
	}
	return -1
}

func appendCPixel(out []byte, pf PixelFormat, c uint32, cp, skip int) []byte {
	var tmp [4]byte
	pf.put(tmp[:pf.pixelSize()], pf.pixel(byte(c>>16), byte(c>>8), byte(c)))
	return append(out, tmp[skip:skip+cp]...)
}

// packed appends palette indices, 1, 2 or 4 bits each, rows padded to a
// byte, most significant bits first.
func (e *encoder) packed(out []byte, palette []uint32, tx, ty, tw, th int) []byte {
	bitsPer := 4
	switch {
	case len(palette) == 2:
		bitsPer = 1
	case len(palette) <= 4:
		bitsPer = 2
	}
	stride := e.stride
	for y := ty; y < ty+th; y++ {
		var cur byte
		nbits := 0
		row := e.band[y*stride+tx*4 : y*stride+(tx+tw)*4]
		for i := 0; i < len(row); i += 4 {
			c := uint32(row[i])<<16 | uint32(row[i+1])<<8 | uint32(row[i+2])
			cur = cur<<bitsPer | byte(indexOf(palette, c))
			nbits += bitsPer
			if nbits == 8 {
				out = append(out, cur)
				cur, nbits = 0, 0
			}
		}
		if nbits > 0 {
			out = append(out, cur<<(8-nbits))
		}
	}
	return out
}

// plainRLE appends runs: a CPIXEL, then the run length minus one as 255s
// and a final byte below 255.
func (e *encoder) plainRLE(out []byte, pf PixelFormat, tx, ty, tw, th, cp, skip int) []byte {
	stride := e.stride
	n := 0
	var prev uint32
	flush := func() {
		out = appendCPixel(out, pf, prev, cp, skip)
		l := n - 1
		for l >= 255 {
			out = append(out, 255)
			l -= 255
		}
		out = append(out, byte(l))
	}
	for y := ty; y < ty+th; y++ {
		row := e.band[y*stride+tx*4 : y*stride+(tx+tw)*4]
		for i := 0; i < len(row); i += 4 {
			c := uint32(row[i])<<16 | uint32(row[i+1])<<8 | uint32(row[i+2])
			if n > 0 && c != prev {
				flush()
				n = 0
			}
			prev = c
			n++
		}
	}
	if n > 0 {
		flush()
	}
	return out
}
