package rfb

import (
	"image"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
)

// surface is the decoder's own copy of the framebuffer, 4 bytes a pixel in
// R, G, B, A order (our negotiated pixel format puts R, G, B in the first
// three bytes, so a row of Raw data copies straight in). Decoders read from
// the network into it; finished updates are copied into the shared
// fb.Buffer under its lock, so that lock is never held across a read.
type surface struct {
	w, h    int
	pix     []byte
	resized time.Time // the latest resize, for fb.Pixels
}

func (s *surface) resize(w, h int) {
	n := w * h * 4
	old := s.pix
	s.pix = nil
	s.pix = fb.Pixels(old, n, &s.resized)
	for i := 3; i < n; i += 4 {
		s.pix[i] = 0xff
	}
	s.w, s.h = w, h
}

// free drops the pixels once the connection has ended and hands their
// memory back to the OS.
func (s *surface) free() {
	dropped := cap(s.pix)
	s.pix, s.w, s.h = nil, 0, 0
	fb.Release(dropped)
}

func (s *surface) bounds() image.Rectangle { return image.Rect(0, 0, s.w, s.h) }

// row returns the bytes of pixels x..x+w on line y.
func (s *surface) row(x, y, w int) []byte {
	o := (y*s.w + x) * 4
	return s.pix[o : o+w*4]
}

func (s *surface) fill(x, y, w, h int, c [4]byte) {
	if w <= 0 || h <= 0 {
		return
	}
	first := s.row(x, y, w)
	for i := 0; i < len(first); i += 4 {
		copy(first[i:i+4], c[:])
	}
	for j := 1; j < h; j++ {
		copy(s.row(x, y+j, w), first)
	}
}

// setOpaque forces the alpha byte of a run of pixels to 0xff.
func setOpaque(p []byte) {
	for i := 3; i < len(p); i += 4 {
		p[i] = 0xff
	}
}

// expand3 widens 3-byte R, G, B pixels into opaque 4-byte ones.
func expand3(dst, src []byte) {
	n := min(len(dst)/4, len(src)/3)
	if n == 0 {
		return
	}
	dst, src = dst[:4*n], src[:3*n]
	for i, j := 0, 0; i < len(dst); i, j = i+4, j+3 {
		d := dst[i : i+4 : i+4]
		s := src[j : j+3 : j+3]
		d[0], d[1], d[2], d[3] = s[0], s[1], s[2], 0xff
	}
}
