package rfb

import (
	"encoding/binary"
	"errors"
	"io"
)

// reader reads big-endian protocol fields with a sticky error: after the
// first failure every read returns zeros, so decoders can check err at
// natural checkpoints instead of after every field. Loops are bounded by
// already-validated sizes, so a failed stream ends them quickly.
type reader struct {
	src     io.Reader
	err     error
	scratch []byte
	n       int64 // bytes consumed, for measurements
}

func newReader(src io.Reader) *reader { return &reader{src: src} }

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// read fills p or records the error. An end of stream inside a message is
// a truncated message: a protocol error wrapping io.ErrUnexpectedEOF.
func (r *reader) read(p []byte) bool {
	if r.err != nil {
		clear(p)
		return false
	}
	n, err := io.ReadFull(r.src, p)
	r.n += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = &ProtocolError{Msg: "truncated message", Err: io.ErrUnexpectedEOF}
		}
		r.err = err
		clear(p)
		return false
	}
	return true
}

// bytes returns the next n bytes in a scratch slice valid until the next
// call. Callers bound n before calling.
func (r *reader) bytes(n int) []byte {
	if cap(r.scratch) < n {
		r.scratch = make([]byte, n)
	}
	b := r.scratch[:n]
	r.read(b)
	return b
}

func (r *reader) u8() uint8 {
	var b [1]byte
	r.read(b[:])
	return b[0]
}

func (r *reader) u16() uint16 {
	var b [2]byte
	r.read(b[:])
	return binary.BigEndian.Uint16(b[:])
}

func (r *reader) u32() uint32 {
	var b [4]byte
	r.read(b[:])
	return binary.BigEndian.Uint32(b[:])
}

func (r *reader) skip(n int) {
	for n > 0 && r.err == nil {
		k := min(n, 32<<10)
		r.bytes(k)
		n -= k
	}
}

// compactLen reads Tight's 1-3 byte length.
func (r *reader) compactLen() int {
	b := int(r.u8())
	n := b & 0x7f
	if b&0x80 != 0 {
		b = int(r.u8())
		n |= (b & 0x7f) << 7
		if b&0x80 != 0 {
			b = int(r.u8())
			n |= b << 14
		}
	}
	return n
}
