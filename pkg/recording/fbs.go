package recording

import (
	"encoding/binary"
	"io"
	"sync"
	"time"
)

// FBS writes the RFB session format ("FBS 001.000\n", then blocks of
// server-to-client bytes: a big-endian length, the bytes padded to four,
// and the block's time in milliseconds since the start).
type FBS struct {
	mu    sync.Mutex
	w     *cappedWriter
	start time.Time
	err   error
}

// NewFBS writes the header.
func NewFBS(w io.Writer, start time.Time, capBytes int64) (*FBS, error) {
	f := &FBS{w: &cappedWriter{w: w, cap: capBytes}, start: start}
	if _, err := io.WriteString(f.w, "FBS 001.000\n"); err != nil {
		return nil, err
	}
	return f, nil
}

// Block records bytes the server sent at time at.
func (f *FBS) Block(at time.Time, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	pad := (4 - len(data)%4) % 4
	b := make([]byte, 0, 8+len(data)+pad)
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	b = append(b, make([]byte, pad)...)
	b = binary.BigEndian.AppendUint32(b, uint32(at.Sub(f.start).Milliseconds()))
	_, f.err = f.w.Write(b)
	return f.err
}

// ReadFBS parses an FBS file back into its blocks (tests and export).
func ReadFBS(r io.Reader, fn func(ms uint32, data []byte) error) error {
	hdr := make([]byte, 12)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return err
	}
	if string(hdr) != "FBS 001.000\n" {
		return errBadFBS
	}
	for {
		var n uint32
		if err := binary.Read(r, binary.BigEndian, &n); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if n > 64<<20 {
			return errBadFBS
		}
		data := make([]byte, n+uint32((4-n%4)%4))
		if _, err := io.ReadFull(r, data); err != nil {
			return err
		}
		var ms uint32
		if err := binary.Read(r, binary.BigEndian, &ms); err != nil {
			return err
		}
		if err := fn(ms, data[:n]); err != nil {
			return err
		}
	}
}

type fbsError string

func (e fbsError) Error() string { return string(e) }

const errBadFBS = fbsError("recording: not an FBS 001.000 file")
