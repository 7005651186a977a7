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

// fdct transforms b in place. Each pass transforms the rows of its
// source and writes them as the columns of its destination, so the same
// code does the rows and then the columns, and the second transposition
// undoes the first.
func fdct(b, tmp *[64]float32) {
	fdctPass(b, tmp)
	fdctPass(tmp, b)
}

// fdctPass is the 8-point transform of each row of src, stored transposed.
func fdctPass(src, dst *[64]float32) {
	for r := 0; r < 8; r++ {
		x := (*[8]float32)(src[r*8 : r*8+8])
		s07, d07 := x[0]+x[7], x[0]-x[7]
		s16, d16 := x[1]+x[6], x[1]-x[6]
		s25, d25 := x[2]+x[5], x[2]-x[5]
		s34, d34 := x[3]+x[4], x[3]-x[4]

		// Even half: frequencies 0, 2, 4, 6.
		e0, e3 := s07+s34, s07-s34
		e1, e2 := s16+s25, s16-s25
		m := (e2 + e3) * c4

		// Odd half: frequencies 1, 3, 5, 7, through a rotation of
		// (d34+d25, d16+d07) and a butterfly around d07.
		o0, o1, o2 := d34+d25, d25+d16, d16+d07
		rot := (o0 - o2) * c6s2
		a, b := c2mc6*o0+rot, c2pc6*o2+rot
		mid := o1 * c4
		hi, lo := d07+mid, d07-mid

		y := dst[r : r+57 : r+57] // y[8*k] is frequency k
		y[0], y[32], y[16], y[48] = e0+e1, e0-e1, e3+m, e3-m
		y[40], y[24], y[8], y[56] = lo+a, lo-a, hi+b, hi-b
	}
}
