package jpegenc

// Markers of T.81 table B.1.
const (
	markSOI  = 0xd8
	markAPP0 = 0xe0
	markDQT  = 0xdb
	markSOF0 = 0xc0
	markDHT  = 0xc4
	markSOS  = 0xda
	markEOI  = 0xd9
)

// Component ids and their table numbers: 0 for luma, 1 for chroma.
var components = [3]struct{ id, table byte }{{1, 0}, {2, 1}, {3, 1}}

// appendHeaders appends everything before the entropy-coded data.
func (e *Encoder) appendHeaders(out []byte, w, h int) []byte {
	out = append(out, 0xff, markSOI)

	// JFIF 1.01: no units, 1:1 pixel aspect, no thumbnail.
	out = appendMarker(out, markAPP0, 14)
	out = append(out, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0)

	out = appendMarker(out, markDQT, 2*65)
	for t, q := range [2]*[64]uint8{&e.quantLuma, &e.quantChroma} {
		out = append(out, byte(t)) // 8-bit precision, table t
		for _, pos := range zigzag {
			out = append(out, q[pos])
		}
	}

	out = appendMarker(out, markSOF0, 6+3*3)
	out = append(out, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), 3)
	for i, c := range components {
		factors := byte(0x11)
		if i == 0 {
			factors = byte(e.hs<<4 | e.vs)
		}
		out = append(out, c.id, factors, c.table)
	}

	specs := [4]struct {
		class byte // 0 DC, 1 AC
		table byte
		spec  *huffSpec
	}{{0, 0, &dcLuma}, {1, 0, &acLuma}, {0, 1, &dcChroma}, {1, 1, &acChroma}}
	n := 0
	for _, s := range specs {
		n += 17 + len(s.spec.symbols)
	}
	out = appendMarker(out, markDHT, n)
	for _, s := range specs {
		out = append(out, s.class<<4|s.table)
		out = append(out, s.spec.counts[:]...)
		out = append(out, s.spec.symbols...)
	}

	out = appendMarker(out, markSOS, 1+3*2+3)
	out = append(out, 3)
	for _, c := range components {
		out = append(out, c.id, c.table<<4|c.table) // DC and AC table
	}
	return append(out, 0, 63, 0) // the whole spectrum, no approximation
}

// appendMarker appends a marker and the length of a segment of n bytes
// after the length.
func appendMarker(out []byte, m byte, n int) []byte {
	n += 2
	return append(out, 0xff, m, byte(n>>8), byte(n))
}
