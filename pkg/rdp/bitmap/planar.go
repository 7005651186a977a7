package bitmap

import (
	"encoding/binary"
	"sync"
)

// Format header bits of an RDP 6.0 planar bitmap (MS-RDPEGDI 2.2.2.5.1).
const (
	planarCLLMask = 0x07 // colour loss level; 0 means ARGB planes
	planarCS      = 0x08 // chroma planes subsampled 2x2
	planarRLE     = 0x10 // planes are RLE segments
	planarNA      = 0x20 // no alpha plane
)

// maxSegmentPixels is the most pixels one RLE control byte can produce (a
// run of 32+15); it bounds how large an image a short stream can describe.
const maxSegmentPixels = 47

// planeScratch holds decoded RLE planes between calls, so steady-state
// decoding of same-sized tiles allocates nothing.
var planeScratch = sync.Pool{New: func() any { return new([]byte) }}

// DecodePlanar decodes an RDP 6.0 planar bitmap (the form 32 bpp bitmap
// updates take when compressed): raw or RLE planes, ARGB or AYCoCg with
// colour loss reduction and chroma subsampling, with or without an alpha
// plane. Scanlines are bottom-up, as in every bitmap update.
func DecodePlanar(src []byte, w, h int, dst []byte, stride int) error {
	if err := checkDst(w, h, dst, stride); err != nil {
		return err
	}
	if len(src) < 1 {
		return corrupt("planar bitmap without format header")
	}
	hdr := src[0]
	body := src[1:]
	cll := int(hdr & planarCLLMask)
	cs := hdr&planarCS != 0
	alpha := hdr&planarNA == 0
	if cs && cll == 0 {
		return corrupt("planar header 0x%02x asks for chroma subsampling of ARGB planes", hdr)
	}
	cw, ch := w, h
	if cs {
		cw, ch = (w+1)/2, (h+1)/2
	}
	p := planes{w: w, h: h, cw: cw, ch: ch}
	lumaSize, chromaSize := w*h, cw*ch
	total := lumaSize + 2*chromaSize
	if alpha {
		total += lumaSize
	}

	if hdr&planarRLE == 0 {
		// Raw planes, then an optional pad byte.
		if len(body) != total && len(body) != total+1 {
			return corrupt("planar %dx%d raw planes need %d bytes, got %d", w, h, total, len(body))
		}
		p.split(body, alpha)
	} else {
		// Every scanline of every plane takes at least one control byte
		// per 47 values; refuse before allocating for a stream too short.
		minBytes := h*((w+maxSegmentPixels-1)/maxSegmentPixels) + 2*ch*((cw+maxSegmentPixels-1)/maxSegmentPixels)
		if alpha {
			minBytes += h * ((w + maxSegmentPixels - 1) / maxSegmentPixels)
		}
		if len(body) < minBytes {
			return corrupt("planar %dx%d RLE planes need at least %d bytes, got %d", w, h, minBytes, len(body))
		}
		bufp := planeScratch.Get().(*[]byte)
		defer planeScratch.Put(bufp)
		if cap(*bufp) < total {
			*bufp = make([]byte, total)
		}
		buf := (*bufp)[:total]
		p.split(buf, alpha)
		rest := body
		var err error
		if alpha {
			if rest, err = decodePlaneRLE(rest, p.a, w, h); err != nil {
				return err
			}
		}
		if rest, err = decodePlaneRLE(rest, p.y, w, h); err != nil {
			return err
		}
		if rest, err = decodePlaneRLE(rest, p.co, cw, ch); err != nil {
			return err
		}
		if rest, err = decodePlaneRLE(rest, p.cg, cw, ch); err != nil {
			return err
		}
		if len(rest) > 1 {
			return corrupt("planar %dx%d RLE planes end %d bytes before the data does", w, h, len(rest))
		}
	}
	if cll == 0 {
		p.writeARGB(dst, stride)
	} else {
		p.writeAYCoCg(dst, stride, uint(cll-1), cs, !alpha)
	}
	return nil
}

// planes are the four decoded planes in wire (bottom-up) scanline order.
// For ARGB, y, co and cg hold red, green and blue. a is nil without alpha.
type planes struct {
	w, h, cw, ch int
	a, y, co, cg []byte
}

func (p *planes) split(b []byte, alpha bool) {
	n, c := p.w*p.h, p.cw*p.ch
	if alpha {
		p.a, b = b[:n], b[n:]
	}
	p.y, p.co, p.cg = b[:n], b[n:n+c], b[n+c:n+2*c]
}

func (p *planes) writeARGB(dst []byte, stride int) {
	w := p.w
	for row := 0; row < p.h; row++ {
		o := (p.h - 1 - row) * stride
		out := dst[o : o+4*w]
		r, g, b := p.y[row*w:row*w+w], p.co[row*w:row*w+w], p.cg[row*w:row*w+w]
		if p.a != nil {
			a := p.a[row*w : row*w+w]
			for x := range w {
				binary.LittleEndian.PutUint32(out[4*x:], packRGBA(uint32(r[x]), uint32(g[x]), uint32(b[x]), uint32(a[x])))
			}
			continue
		}
		for x := range w {
			binary.LittleEndian.PutUint32(out[4*x:], packRGBA(uint32(r[x]), uint32(g[x]), uint32(b[x]), 0xff))
		}
	}
}

// writeAYCoCg applies the inverse colour transform of MS-RDPEGDI 3.1.9.1.2.
// Chroma is stored shifted right by the colour loss level; shifting it back
// by one less yields half of Co and Cg, which is what the inverse matrix
// needs. Servers swap red and blue in bitmaps without alpha (the
// specification tells clients to swap them back), hence swapRB.
func (p *planes) writeAYCoCg(dst []byte, stride int, shift uint, cs, swapRB bool) {
	w := p.w
	sub := 0
	if cs {
		sub = 1
	}
	for row := 0; row < p.h; row++ {
		o := (p.h - 1 - row) * stride
		out := dst[o : o+4*w]
		ys := p.y[row*w : row*w+w]
		crow := (row >> sub) * p.cw
		cos, cgs := p.co[crow:crow+p.cw], p.cg[crow:crow+p.cw]
		var as []byte
		if p.a != nil {
			as = p.a[row*w : row*w+w]
		}
		for x := range w {
			y := int32(ys[x])
			co := int32(int8(cos[x>>sub] << shift))
			cg := int32(int8(cgs[x>>sub] << shift))
			t := y - cg
			r, g, b := clamp8(t+co), clamp8(y+cg), clamp8(t-co)
			if swapRB {
				r, b = b, r
			}
			a := uint32(0xff)
			if as != nil {
				a = uint32(as[x])
			}
			binary.LittleEndian.PutUint32(out[4*x:], packRGBA(r, g, b, a))
		}
	}
}

func clamp8(v int32) uint32 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint32(v)
}

// decodePlaneRLE decodes one plane of RDP6 RLE segments (MS-RDPEGDI
// 3.1.9.2) into out (w*h bytes, scanlines in wire order) and returns the
// rest of src. The first scanline holds absolute values; later ones hold
// deltas to the scanline before, with the sign in the lowest bit.
func decodePlaneRLE(src, out []byte, w, h int) ([]byte, error) {
	for row := 0; row < h; row++ {
		line := out[row*w : row*w+w]
		var prev []byte
		if row > 0 {
			prev = out[(row-1)*w : row*w]
		}
		x := 0
		var last byte // value a run repeats; zero until a raw value is seen
		for x < w {
			if len(src) == 0 {
				return nil, corrupt("planar RLE plane ends at scanline %d of %d", row, h)
			}
			ctl := src[0]
			src = src[1:]
			run, raw := int(ctl&0x0f), int(ctl>>4)
			switch run {
			case 1:
				run, raw = 16+raw, 0
			case 2:
				run, raw = 32+raw, 0
			}
			if x+raw+run > w {
				return nil, corrupt("planar RLE segment of %d values overruns a %d-pixel scanline", raw+run, w)
			}
			if len(src) < raw {
				return nil, corrupt("planar RLE segment needs %d raw bytes, %d left", raw, len(src))
			}
			if raw > 0 {
				last = src[raw-1]
			}
			if prev == nil {
				copy(line[x:], src[:raw])
				x += raw
				for end := x + run; x < end; x++ {
					line[x] = last
				}
			} else {
				for _, v := range src[:raw] {
					line[x] = prev[x] + unzigzag(v)
					x++
				}
				dv := unzigzag(last)
				for end := x + run; x < end; x++ {
					line[x] = prev[x] + dv
				}
			}
			src = src[raw:]
		}
	}
	return src, nil
}

// unzigzag turns an encoded delta (magnitude shifted up one, odd = negative)
// into the byte to add to the previous scanline.
func unzigzag(v byte) byte {
	if v&1 != 0 {
		return -(v>>1 + 1)
	}
	return v >> 1
}
