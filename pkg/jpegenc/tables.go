package jpegenc

// Tables of ITU T.81: the zig-zag order (figure A.6), the example
// quantisation tables of Annex K.1 and the typical Huffman tables of
// Annex K.3, which libjpeg also uses when it does not optimise them.

// zigzag[k] is the natural (row-major) position of the k-th coefficient
// in zig-zag order.
var zigzag = [64]uint8{
	0, 1, 8, 16, 9, 2, 3, 10,
	17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34,
	27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36,
	29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46,
	53, 60, 61, 54, 47, 55, 62, 63,
}

// Annex K.1, tables K.1 (luminance) and K.2 (chrominance), natural order.
var baseLuma = [64]uint8{
	16, 11, 10, 16, 24, 40, 51, 61,
	12, 12, 14, 19, 26, 58, 60, 55,
	14, 13, 16, 24, 40, 57, 69, 56,
	14, 17, 22, 29, 51, 87, 80, 62,
	18, 22, 37, 56, 68, 109, 103, 77,
	24, 35, 55, 64, 81, 104, 113, 92,
	49, 64, 78, 87, 103, 121, 120, 101,
	72, 92, 95, 98, 112, 100, 103, 99,
}

var baseChroma = [64]uint8{
	17, 18, 24, 47, 99, 99, 99, 99,
	18, 21, 26, 66, 99, 99, 99, 99,
	24, 26, 56, 99, 99, 99, 99, 99,
	47, 66, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
}

// scaleQuant scales a base table to quality q (1..100) the way the
// Independent JPEG Group's software does, so quality N here is libjpeg's
// quality N: a percentage of the base table, 5000/q below 50 and 200-2q
// from 50 on, rounded and held to 1..255 (baseline allows 8 bits).
func scaleQuant(base *[64]uint8, q int) (t [64]uint8) {
	pct := 200 - 2*q
	if q < 50 {
		pct = 5000 / q
	}
	for i, b := range base {
		v := (int(b)*pct + 50) / 100
		t[i] = uint8(min(max(v, 1), 255))
	}
	return t
}

// huffSpec is a Huffman table as a DHT segment states it: how many codes
// of each length 1..16, then the symbols in code order.
type huffSpec struct {
	counts  [16]uint8
	symbols []uint8
}

// The DC tables (K.3 and K.4) code the magnitude categories 0..11.
var (
	dcLuma   = huffSpec{[16]uint8{0, 1, 5, 1, 1, 1, 1, 1, 1}, []uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}
	dcChroma = huffSpec{[16]uint8{0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, []uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}
)

// The AC tables (K.5 and K.6) code run/size symbols. Their codes shorter
// than 16 bits are listed; the 16-bit codes go to every other symbol
// (162 in all: runs 0..15 by sizes 1..10, end-of-block and the 16-zero
// run) in increasing order, which is how the standard's lists end.
var (
	acLuma = acSpec([16]uint8{0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d}, []uint8{
		0x01, 0x02,
		0x03,
		0x00, 0x04, 0x11,
		0x05, 0x12, 0x21,
		0x31, 0x41,
		0x06, 0x13, 0x51, 0x61,
		0x07, 0x22, 0x71,
		0x14, 0x32, 0x81, 0x91, 0xa1,
		0x08, 0x23, 0x42, 0xb1, 0xc1,
		0x15, 0x52, 0xd1, 0xf0,
		0x24, 0x33, 0x62, 0x72,
		0x82,
	})
	acChroma = acSpec([16]uint8{0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77}, []uint8{
		0x00, 0x01,
		0x02,
		0x03, 0x11,
		0x04, 0x05, 0x21, 0x31,
		0x06, 0x12, 0x41, 0x51,
		0x07, 0x61, 0x71,
		0x13, 0x22, 0x32, 0x81,
		0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1,
		0x09, 0x23, 0x33, 0x52, 0xf0,
		0x15, 0x62, 0x72, 0xd1,
		0x0a, 0x16, 0x24, 0x34,
		0xe1,
		0x25, 0xf1,
	})
)

// acSpec completes an AC table from its short codes' symbols.
func acSpec(counts [16]uint8, short []uint8) huffSpec {
	listed := map[uint8]bool{}
	for _, s := range short {
		listed[s] = true
	}
	syms := append([]uint8(nil), short...)
	for s := 0; s < 256; s++ {
		run, size := s>>4, s&15
		valid := size >= 1 && size <= 10 || s == 0x00 || s == 0xf0
		if valid && run <= 15 && !listed[uint8(s)] {
			syms = append(syms, uint8(s))
		}
	}
	return huffSpec{counts, syms}
}

// huffCode is a symbol's code: its bits, right-aligned, and their count.
type huffCode struct {
	bits uint32
	len  uint32
}

// codes assigns the canonical codes of Annex C: codes of one length are
// consecutive, and the next length starts at twice the next free code.
func (s *huffSpec) codes() (t [256]huffCode) {
	code, k := uint32(0), 0
	for l := 1; l <= 16; l++ {
		for n := 0; n < int(s.counts[l-1]); n++ {
			t[s.symbols[k]] = huffCode{code, uint32(l)}
			code++
			k++
		}
		code <<= 1
	}
	return t
}
