package jpegenc

// Colour conversion (JFIF: BT.601 full range) and chroma sampling of one
// MCU, with the level shift of T.81 A.3.1 applied (samples centred on 0).
// Beyond the picture's right and bottom edges the last column and row are
// repeated, so edge blocks cost few bits and decode without a seam.

const (
	yr, yg, yb    = 0.299, 0.587, 0.114
	cbr, cbg, cbb = -0.168736, -0.331264, 0.5
	crr, crg, crb = 0.5, -0.418688, -0.081312
)

// load444 fills one block of each component from the 8x8 pixels at x0, y0.
func (e *Encoder) load444(pix []byte, stride, w, h, x0, y0 int) {
	var xs [8]int
	for c := range xs {
		xs[c] = min(x0+c, w-1) * 4
	}
	lum, cb, cr := &e.luma[0], &e.cb, &e.cr
	for r := 0; r < 8; r++ {
		row := pix[min(y0+r, h-1)*stride:]
		for c, x := range xs {
			p := row[x : x+3 : x+3]
			R, G, B := float32(p[0]), float32(p[1]), float32(p[2])
			i := r*8 + c
			lum[i] = yr*R + yg*G + yb*B - 128
			cb[i] = cbr*R + cbg*G + cbb*B
			cr[i] = crr*R + crg*G + crb*B
		}
	}
}

// loadSubsampled fills the luma blocks of one MCU (2x1 or 2x2 blocks, in
// the MCU's order: left to right, then top to bottom) and one chroma block
// each, the mean of the 2 or 4 pixels a chroma sample covers.
func (e *Encoder) loadSubsampled(pix []byte, stride, w, h, x0, y0 int) {
	var xs [16]int
	for c := range xs {
		xs[c] = min(x0+c, w-1) * 4
	}
	vshift := uint(e.vs - 1)
	clear(e.cb[:])
	clear(e.cr[:])
	cb, cr := &e.cb, &e.cr
	for r := 0; r < 8*e.vs; r++ {
		row := pix[min(y0+r, h-1)*stride:]
		lums := (*[2][64]float32)(e.luma[(r>>3)*2:])
		crow := (r >> vshift) * 8
		for c, x := range xs {
			p := row[x : x+3 : x+3]
			R, G, B := float32(p[0]), float32(p[1]), float32(p[2])
			lums[c>>3][(r&7)*8+c&7] = yr*R + yg*G + yb*B - 128
			i := crow + c>>1
			cb[i] += cbr*R + cbg*G + cbb*B
			cr[i] += crr*R + crg*G + crb*B
		}
	}
	scale := float32(1) / float32(2*e.vs)
	for i := range cb {
		cb[i] *= scale
		cr[i] *= scale
	}
}
