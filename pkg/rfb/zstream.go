package rfb

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
)

// zstream is one server-side zlib stream (Zlib, ZRLE, each of Tight's four,
// one extended-clipboard message). Servers end every rectangle's data with
// a sync flush, so each chunk holds whole deflate blocks whose back
// references reach at most 32 KiB into earlier output. Each chunk is
// therefore inflated on its own with the previous output as dictionary:
// the decompressor never waits for bytes that are not there, and the output
// of one chunk is capped by what its rectangle can need (no zlib bombs).
type zstream struct {
	started bool // the two-byte zlib header has been consumed
	dict    []byte
	fr      io.ReadCloser
	src     bytes.Reader
	out     []byte
}

const maxDict = 32 << 10

func (z *zstream) reset() {
	z.started = false
	z.dict = z.dict[:0]
}

// inflate decompresses one chunk and returns its output (valid until the
// next call). More than limit bytes of output is a protocol error.
func (z *zstream) inflate(chunk []byte, limit int) ([]byte, error) {
	if !z.started {
		if len(chunk) < 2 {
			return nil, protoErr("zlib stream shorter than its header")
		}
		cmf, flg := chunk[0], chunk[1]
		if cmf&0x0f != 8 || (uint16(cmf)<<8|uint16(flg))%31 != 0 || flg&0x20 != 0 {
			return nil, protoErr("bad zlib header %02x %02x", cmf, flg)
		}
		chunk = chunk[2:]
		z.started = true
	}
	z.src.Reset(chunk)
	if z.fr == nil {
		z.fr = flate.NewReaderDict(&z.src, z.dict)
	} else if err := z.fr.(flate.Resetter).Reset(&z.src, z.dict); err != nil {
		return nil, &ProtocolError{Msg: "zlib reset", Err: err}
	}
	out := z.out[:0]
	for {
		if len(out) == cap(out) {
			if len(out) > limit {
				return nil, protoErr("zlib data inflates beyond the %d bytes the rectangle can hold", limit)
			}
			grow := max(4096, min(cap(out), limit+1-len(out)))
			out = append(out, make([]byte, grow)...)[:len(out)]
		}
		n, err := z.fr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if err != nil {
			if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
				break // end of the chunk (or of a finished stream)
			}
			return nil, &ProtocolError{Msg: "corrupt zlib data", Err: err}
		}
	}
	if len(out) > limit {
		return nil, protoErr("zlib data inflates beyond the %d bytes the rectangle can hold", limit)
	}
	z.out = out
	// Keep the last 32 KiB of output as the next chunk's dictionary.
	if len(out) >= maxDict {
		z.dict = append(z.dict[:0], out[len(out)-maxDict:]...)
	} else {
		keep := max(0, len(z.dict)+len(out)-maxDict)
		n := copy(z.dict, z.dict[keep:])
		z.dict = append(z.dict[:n], out...)
	}
	return out, nil
}
