package rfb

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
)

// Test-side encoders, written from the protocol description, to build
// decoder inputs and fuzz seeds.

// zenc is one zlib stream ending every chunk with a sync flush, as servers do.
type zenc struct {
	buf bytes.Buffer
	w   *zlib.Writer
}

func (z *zenc) chunk(data []byte) []byte {
	if z.w == nil {
		z.w = zlib.NewWriter(&z.buf)
	}
	z.w.Write(data)
	z.w.Flush()
	out := append([]byte(nil), z.buf.Bytes()...)
	z.buf.Reset()
	return out
}

func px(r, g, b byte) []byte { return []byte{r, g, b, 0} }

func u32(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func compact(n int) []byte {
	switch {
	case n < 128:
		return []byte{byte(n)}
	case n < 1<<14:
		return []byte{byte(n) | 0x80, byte(n >> 7)}
	}
	return []byte{byte(n) | 0x80, byte(n>>7) | 0x80, byte(n >> 14)}
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}
