// Package jpegenc is a baseline JPEG encoder (ITU T.81, sequential DCT,
// 8 bits, Huffman coded) for RGBA pixels, whose caller chooses the chroma
// subsampling: the Tight encoding's JPEG must match what TigerVNC sends
// at each quality level, which image/jpeg (always 4:2:0) cannot.
//
// Output is JFIF with the standard's example quantisation tables scaled
// as libjpeg scales them (so quality N here is libjpeg's quality N) and
// the standard's typical Huffman tables, not optimised ones: one pass
// over the pixels, which is what a live screen needs.
package jpegenc

import (
	"fmt"
	"image"
	"slices"
)

// Subsampling is how the two chroma components are sampled relative to
// luma.
type Subsampling uint8

const (
	Sub444 Subsampling = iota // full resolution
	Sub422                    // half horizontally (2x1)
	Sub420                    // half both ways (2x2)
)

func (s Subsampling) String() string {
	switch s {
	case Sub444:
		return "4:4:4"
	case Sub422:
		return "4:2:2"
	case Sub420:
		return "4:2:0"
	}
	return fmt.Sprintf("Subsampling(%d)", uint8(s))
}

// factors are the luma sampling factors (horizontal, vertical); chroma's
// are always 1x1.
func (s Subsampling) factors() (h, v int) {
	switch s {
	case Sub422:
		return 2, 1
	case Sub420:
		return 2, 2
	}
	return 1, 1
}

// MaxSide is the largest width or height a JPEG frame header can state.
const MaxSide = 65535

// Error is a refused input; Code names the kind for callers that branch.
type Error struct {
	Code string // BAD_SIZE, BAD_QUALITY, BAD_SUBSAMPLING, SHORT_PIXELS
	Msg  string
}

func (e *Error) Error() string { return "jpegenc: " + e.Msg }

func errorf(code, format string, a ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, a...)}
}

// Encoder encodes pictures one at a time; its buffers and the tables of
// its last quality are kept for the next picture. The zero value is ready.
// It is not safe for concurrent use.
type Encoder struct {
	quality         int // of the tables below; 0: none yet
	quantLuma       [64]uint8
	quantChroma     [64]uint8
	divLuma         [64]float32
	divChroma       [64]float32
	hs, vs          int // luma sampling factors
	luma            [4][64]float32
	cb, cr          [64]float32
	tmp             [64]float32 // the DCT's, between its passes
	coef            [64]int32
	dcY, dcCb, dcCr int32 // the previous block's DC, per component
	bits            bitWriter
}

// EncodeImage appends img, as JPEG, to dst. See Encode.
func (e *Encoder) EncodeImage(dst []byte, img *image.RGBA, quality int, sub Subsampling) ([]byte, error) {
	r := img.Rect
	if r.Empty() {
		return dst, errorf("BAD_SIZE", "empty image %v: nothing to encode", r)
	}
	// Pix starts at Rect.Min (SubImage slices it so); Encode checks its length.
	return e.Encode(dst, img.Pix, img.Stride, r.Dx(), r.Dy(), quality, sub)
}

// Encode appends the w×h picture in pix (RGBA, 4 bytes a pixel, stride
// bytes a row, alpha ignored) to dst as a JPEG of the given quality
// (1..100, libjpeg's scale) and chroma subsampling. On error dst is
// returned as it was.
func (e *Encoder) Encode(dst []byte, pix []byte, stride, w, h, quality int, sub Subsampling) ([]byte, error) {
	if err := check(len(pix), stride, w, h, quality, sub); err != nil {
		return dst, err
	}
	e.setQuality(quality)
	e.hs, e.vs = sub.factors()
	// Room for a typical picture (a few bits a pixel), not a worst case.
	out := slices.Grow(dst, min(w*h/2, 8<<20)+1024)
	out = e.appendHeaders(out, w, h)
	e.bits = bitWriter{out: out}
	e.dcY, e.dcCb, e.dcCr = 0, 0, 0
	mw, mh := 8*e.hs, 8*e.vs
	for y0 := 0; y0 < h; y0 += mh {
		for x0 := 0; x0 < w; x0 += mw {
			if e.hs == 1 && e.vs == 1 {
				e.load444(pix, stride, w, h, x0, y0)
			} else {
				e.loadSubsampled(pix, stride, w, h, x0, y0)
			}
			for i := range e.hs * e.vs {
				e.block(&e.luma[i], &e.divLuma, &e.dcY, &dcLumaCodes, &acLumaCodes)
			}
			e.block(&e.cb, &e.divChroma, &e.dcCb, &dcChromaCodes, &acChromaCodes)
			e.block(&e.cr, &e.divChroma, &e.dcCr, &dcChromaCodes, &acChromaCodes)
		}
	}
	out = e.bits.finish()
	e.bits.out = nil // the caller owns it now
	return append(out, 0xff, markEOI), nil
}

func check(n, stride, w, h, quality int, sub Subsampling) error {
	switch {
	case w <= 0 || h <= 0 || w > MaxSide || h > MaxSide:
		return errorf("BAD_SIZE", "picture of %dx%d: width and height must be 1..%d", w, h, MaxSide)
	case quality < 1 || quality > 100:
		return errorf("BAD_QUALITY", "quality %d out of range: give 1..100", quality)
	case sub > Sub420:
		return errorf("BAD_SUBSAMPLING", "unknown subsampling %d: give Sub444, Sub422 or Sub420", uint8(sub))
	case stride < 4*w:
		return errorf("SHORT_PIXELS", "stride %d is less than 4 bytes times the width %d", stride, w)
	case n < 4*w || h > 1 && stride > (n-4*w)/(h-1): // n < (h-1)*stride+4*w, without overflow
		return errorf("SHORT_PIXELS", "%d bytes of pixels for %dx%d at stride %d: need (height-1)*stride + 4*width", n, w, h, stride)
	}
	return nil
}

func (e *Encoder) setQuality(q int) {
	if q == e.quality {
		return
	}
	e.quality = q
	e.quantLuma = scaleQuant(&baseLuma, q)
	e.quantChroma = scaleQuant(&baseChroma, q)
	e.divLuma = divisors(&e.quantLuma)
	e.divChroma = divisors(&e.quantChroma)
}
