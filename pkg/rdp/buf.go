package rdp

import (
	"encoding/binary"
	"unicode/utf16"
)

// reader walks a PDU body. Every read is bounds-checked; the first short
// read sets err and later reads return zeros, so parsers check err once.
type reader struct {
	b     []byte
	off   int
	where string
	err   error
}

func newReader(where string, b []byte) *reader { return &reader{b: b, where: where} }

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = protoErr(r.where, format, args...)
	}
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.off+n > len(r.b) {
		r.fail("truncated: need %d bytes at offset %d of %d", n, r.off, len(r.b))
		return false
	}
	return true
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.LittleEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u16be() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

// bytes returns the next n bytes without copying.
func (r *reader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v
}

func (r *reader) skip(n int) { r.bytes(n) }

func (r *reader) rest() []byte {
	if r.err != nil {
		return nil
	}
	v := r.b[r.off:]
	r.off = len(r.b)
	return v
}

// writer builds a PDU body in little-endian order.
type writer struct{ b []byte }

func (w *writer) u8(v uint8)              { w.b = append(w.b, v) }
func (w *writer) u16(v uint16)            { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *writer) u16be(v uint16)          { w.b = binary.BigEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32)            { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) bytes(v []byte)          { w.b = append(w.b, v...) }
func (w *writer) zeros(n int)             { w.b = append(w.b, make([]byte, n)...) }
func (w *writer) len() int                { return len(w.b) }
func (w *writer) putU16(at int, v uint16) { binary.LittleEndian.PutUint16(w.b[at:], v) }

// utf16le encodes s as UTF-16LE without a terminator.
func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	out := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(out[2*i:], c)
	}
	return out
}

// fixedUTF16 encodes s into exactly n bytes, truncated and zero-padded, with
// room left for a terminator.
func fixedUTF16(s string, n int) []byte {
	out := make([]byte, n)
	b := utf16le(s)
	if len(b) > n-2 {
		b = b[:(n-2)&^1]
	}
	copy(out, b)
	return out
}
