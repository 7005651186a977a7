package jpegenc

import "math/bits"

var (
	dcLumaCodes   = dcLuma.codes()
	acLumaCodes   = acLuma.codes()
	dcChromaCodes = dcChroma.codes()
	acChromaCodes = acChroma.codes()
)

// block transforms, quantises and Huffman-codes one 8x8 block.
func (e *Encoder) block(b *[64]float32, div *[64]float32, prevDC *int32, dc, ac *[256]huffCode) {
	fdct(b, &e.tmp)
	c := &e.coef
	for k, pos := range zigzag {
		// Round to nearest: the offset keeps the conversion's truncation
		// away from zero's two sides (|values| stay far below it).
		c[k] = int32(b[pos]*div[k]+16384.5) - 16384
	}
	w := &e.bits
	diff := c[0] - *prevDC
	*prevDC = c[0]
	w.value(dc, 0, diff)
	run := uint8(0)
	for k := 1; k < 64; k++ {
		v := c[k]
		if v == 0 {
			run++
			continue
		}
		for run > 15 {
			w.code(ac[0xf0]) // sixteen zeros
			run -= 16
		}
		w.value(ac, run<<4, v)
		run = 0
	}
	if run > 0 {
		w.code(ac[0x00]) // end of block
	}
}

// bitWriter appends entropy-coded bits to out, most significant first,
// stuffing a zero byte after every 0xff (T.81 F.1.2.3).
type bitWriter struct {
	out []byte
	acc uint64 // the low n bits are pending
	n   uint32
}

func (w *bitWriter) code(c huffCode) { w.put(c.bits, c.len) }

// value writes the symbol (run, size of v) and then v's size low bits:
// v itself when positive, v-1 when negative (T.81 F.1.2.1).
func (w *bitWriter) value(t *[256]huffCode, run uint8, v int32) {
	a := v
	if v < 0 {
		a, v = -v, v-1
	}
	size := uint32(bits.Len32(uint32(a)))
	c := t[run|uint8(size)]
	w.put(c.bits<<size|uint32(v)&(1<<size-1), c.len+size)
}

// put adds the low size bits of b (size ≤ 27: a code and its value).
func (w *bitWriter) put(b, size uint32) {
	w.acc = w.acc<<size | uint64(b)
	w.n += size
	if w.n >= 32 {
		w.flush32()
	}
}

// flush32 writes the 4 oldest pending bytes.
func (w *bitWriter) flush32() {
	w.n -= 32
	v := uint32(w.acc >> w.n)
	if x := ^v; (x-0x01010101)&^x&0x80808080 == 0 { // no 0xff byte
		w.out = append(w.out, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
		return
	}
	for s := 24; s >= 0; s -= 8 {
		b := byte(v >> s)
		w.out = append(w.out, b)
		if b == 0xff {
			w.out = append(w.out, 0)
		}
	}
}

// finish pads the last byte with 1 bits and returns the output.
func (w *bitWriter) finish() []byte {
	if pad := (8 - w.n%8) % 8; pad > 0 {
		w.put(1<<pad-1, pad)
	}
	for w.n >= 8 {
		w.n -= 8
		b := byte(w.acc >> w.n)
		w.out = append(w.out, b)
		if b == 0xff {
			w.out = append(w.out, 0)
		}
	}
	return w.out
}
