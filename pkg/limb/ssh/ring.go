package ssh

import (
	"fmt"
	"unicode/utf8"
)

// Ring is the terminal's scrollback: the last Size bytes of raw output.
// Positions are byte offsets counted from the session's start, so a cursor
// stays meaningful after the ring has wrapped.
type Ring struct {
	buf   []byte
	total uint64 // bytes ever written; the next byte's offset
}

// DefaultScrollback is the ring size of a terminal limb: 4 MiB of raw
// output (about 50,000 lines of 80 characters).
const DefaultScrollback = 4 << 20

// NewRing makes a ring holding the last size bytes.
func NewRing(size int) *Ring {
	if size <= 0 {
		size = DefaultScrollback
	}
	return &Ring{buf: make([]byte, size)}
}

// Write appends output, overwriting the oldest bytes once full.
func (r *Ring) Write(p []byte) {
	size := uint64(len(r.buf))
	if uint64(len(p)) > size { // only the tail of an oversize write survives
		r.total += uint64(len(p)) - size
		p = p[uint64(len(p))-size:]
	}
	for len(p) > 0 {
		at := r.total % size
		n := copy(r.buf[at:], p)
		p = p[n:]
		r.total += uint64(n)
	}
}

// Total is the offset of the next byte to be written.
func (r *Ring) Total() uint64 { return r.total }

// Oldest is the offset of the oldest byte still held.
func (r *Ring) Oldest() uint64 {
	if size := uint64(len(r.buf)); r.total > size {
		return r.total - size
	}
	return 0
}

// Read returns up to max bytes from offset since, the offset after them,
// and how many bytes between since and the oldest held byte were lost to
// wrapping. When max cuts a UTF-8 character, the cut moves back to its
// start so the next read begins with whole text.
func (r *Ring) Read(since uint64, max int) (data []byte, next uint64, lost int64, err error) {
	if since > r.total {
		return nil, r.total, 0, fmt.Errorf("cursor %d is beyond the %d bytes of output so far", since, r.total)
	}
	if oldest := r.Oldest(); since < oldest {
		lost = int64(oldest - since)
		since = oldest
	}
	n := r.total - since
	cut := false
	if max > 0 && n > uint64(max) {
		n, cut = uint64(max), true
	}
	data = make([]byte, n)
	size := uint64(len(r.buf))
	at := since % size
	c := copy(data, r.buf[at:])
	copy(data[c:], r.buf)
	if cut {
		data = trimPartialRune(data)
	}
	return data, since + uint64(len(data)), lost, nil
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b, if
// the text before it is UTF-8 at all and something remains.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax-1 && i < len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return b // ASCII: nothing partial
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}
