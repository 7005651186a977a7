package jpegenc

import "math"

// The forward DCT is the fast factorisation of Arai, Agui and Nakajima
// (1988): 5 multiplications and 29 additions per 8 samples. Its outputs
// are the true coefficients times a per-frequency factor, which the
// quantiser divides out for free: see divisors.

// aanScale[k] is that factor for frequency k of one dimension.
var aanScale = func() (s [8]float64) {
	s[0] = 1
	for k := 1; k < 8; k++ {
		s[k] = math.Cos(float64(k)*math.Pi/16) * math.Sqrt2
	}
	return s
}()

// divisors turns a quantisation table (natural order) into the factors,
// in zig-zag order, that take a scaled DCT output straight to the
// quantised coefficient. The 8 is the two 1/2 normalisations of the 2-D
// DCT's definition times 2 (the factorisation leaves each dimension
// doubled).
func divisors(q *[64]uint8) (d [64]float32) {
	for k, pos := range zigzag {
		u, v := pos/8, pos%8
		d[k] = float32(1 / (float64(q[pos]) * aanScale[u] * aanScale[v] * 8))
	}
	return d
}

const (
	c4    = 0.707106781 // cos(4π/16)
	c6s2  = 0.382683433 // cos(6π/16)
	c2mc6 = 0.541196100 // cos(2π/16) - cos(6π/16)
	c2pc6 = 1.306562965 // cos(2π/16) + cos(6π/16)
)

// fdct transforms b in place: rows, then columns.
func fdct(b *[64]float32) {
	for i := 0; i < 64; i += 8 {
		r := (*[8]float32)(b[i : i+8])
		r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = fdct8(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7])
	}
	for i := 0; i < 8; i++ {
		b[i], b[i+8], b[i+16], b[i+24], b[i+32], b[i+40], b[i+48], b[i+56] =
			fdct8(b[i], b[i+8], b[i+16], b[i+24], b[i+32], b[i+40], b[i+48], b[i+56])
	}
}

// fdct8 is one 8-point transform, its outputs in frequency order.
func fdct8(x0, x1, x2, x3, x4, x5, x6, x7 float32) (y0, y1, y2, y3, y4, y5, y6, y7 float32) {
	s07, d07 := x0+x7, x0-x7
	s16, d16 := x1+x6, x1-x6
	s25, d25 := x2+x5, x2-x5
	s34, d34 := x3+x4, x3-x4

	// Even half: frequencies 0, 2, 4, 6.
	e0, e3 := s07+s34, s07-s34
	e1, e2 := s16+s25, s16-s25
	m := (e2 + e3) * c4
	y0, y4, y2, y6 = e0+e1, e0-e1, e3+m, e3-m

	// Odd half: frequencies 1, 3, 5, 7, through a rotation of
	// (d34+d25, d16+d07) and a butterfly around d07.
	o0, o1, o2 := d34+d25, d25+d16, d16+d07
	rot := (o0 - o2) * c6s2
	a, b := c2mc6*o0+rot, c2pc6*o2+rot
	mid := o1 * c4
	hi, lo := d07+mid, d07-mid
	y5, y3, y1, y7 = lo+a, lo-a, hi+b, hi-b
	return
}
