// Package pipe is the framing between dvvd and dvvocr, its resident text
// recognition worker: one frame a message on the worker's stdin and stdout,
// each an 8-byte header and a bounded payload. Both sides decode what the
// other wrote as untrusted bytes: a frame that breaks a rule is an error,
// never a panic or an allocation beyond the bounds.
package pipe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
)

// Frame kinds.
const (
	KindHello       byte = 'H' // worker → dvvd, once at start: the engine's version
	KindRecognize   byte = 'R' // dvvd → worker: a grey picture to read
	KindTSV         byte = 'T' // worker → dvvd: the words read, as tesseract's TSV
	KindError       byte = 'E' // worker → dvvd: the read failed (text)
	KindUnavailable byte = 'U' // worker → dvvd: the language data is missing (text)
)

// magic opens every frame; version is the protocol's.
const (
	magic0, magic1 = 'D', 'V'
	version        = 1
	headerLen      = 8
)

// Bounds. A request carries at most MaxPixels grey pixels (a canvas is at
// most a few million); an answer at most MaxAnswer bytes.
const (
	MaxSide   = 1 << 14
	MaxPixels = 48 << 20
	MaxAnswer = 16 << 20
	maxLang   = 255
)

// ErrFrame is wrapped by every decoding error: the stream is out of step
// and the worker must be restarted.
var ErrFrame = errors.New("pipe: malformed frame")

func frameErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrFrame, fmt.Sprintf(format, a...))
}

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, kind byte, payload []byte) error {
	var h [headerLen]byte
	h[0], h[1], h[2], h[3] = magic0, magic1, version, kind
	binary.BigEndian.PutUint32(h[4:], uint32(len(payload)))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// ReadFrame reads one frame whose payload may be at most max bytes. A
// clean end of stream before a header is io.EOF.
func ReadFrame(r io.Reader, max int) (kind byte, payload []byte, err error) {
	var h [headerLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.EOF {
			return 0, nil, io.EOF
		}
		return 0, nil, frameErr("short header: %v", err)
	}
	if h[0] != magic0 || h[1] != magic1 {
		return 0, nil, frameErr("bad magic %q", h[:2])
	}
	if h[2] != version {
		return 0, nil, frameErr("protocol version %d, want %d", h[2], version)
	}
	kind = h[3]
	switch kind {
	case KindHello, KindRecognize, KindTSV, KindError, KindUnavailable:
	default:
		return 0, nil, frameErr("unknown kind %q", kind)
	}
	n := binary.BigEndian.Uint32(h[4:])
	if int64(n) > int64(max) {
		return 0, nil, frameErr("payload of %d bytes is over the %d byte bound", n, max)
	}
	// Grown as bytes arrive, so a header that lies about its length costs
	// no more memory than was really sent.
	buf := make([]byte, 0, min(int(n), 1<<16))
	for len(buf) < int(n) {
		chunk := min(int(n)-len(buf), 1<<20)
		buf = append(buf, make([]byte, chunk)...)
		if _, err := io.ReadFull(r, buf[len(buf)-chunk:]); err != nil {
			return 0, nil, frameErr("payload cut short at %d of %d bytes: %v", len(buf)-chunk, n, err)
		}
	}
	return kind, buf, nil
}

// Request is one picture to read: Width x Height grey bytes, row by row.
type Request struct {
	Lang       string // a list like eng or eng+deu (LangOK)
	PSM        uint8  // tesseract's page segmentation mode
	DeadlineMs uint32 // the worker gives up recognising after this long (0: never)
	Width      int
	Height     int
	Pix        []byte
}

const requestFixed = 1 + 1 + 4 + 4 + 4 // lang length, psm, deadline, width, height

var langRE = regexp.MustCompile(`^[A-Za-z0-9_]{2,32}(\+[A-Za-z0-9_]{2,32}){0,7}$`)

// LangOK reports whether lang is a well-formed language list (never a
// path or a flag).
func LangOK(lang string) bool { return langRE.MatchString(lang) }

// MaxRequest is the largest request payload.
const MaxRequest = requestFixed + maxLang + MaxPixels

func (q *Request) check() error {
	if !LangOK(q.Lang) {
		return frameErr("language %q is not a list like eng or eng+deu", q.Lang)
	}
	if q.Width < 1 || q.Height < 1 || q.Width > MaxSide || q.Height > MaxSide || q.Width*q.Height > MaxPixels {
		return frameErr("picture of %dx%d is outside 1x1..%dx%d (%d pixels at most)", q.Width, q.Height, MaxSide, MaxSide, MaxPixels)
	}
	if len(q.Pix) != q.Width*q.Height {
		return frameErr("%d pixel bytes for a %dx%d picture", len(q.Pix), q.Width, q.Height)
	}
	if q.PSM > 13 {
		return frameErr("page segmentation mode %d is not 0..13", q.PSM)
	}
	return nil
}

// Encode makes the request's payload.
func (q *Request) Encode() ([]byte, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	out := make([]byte, 0, requestFixed+len(q.Lang)+len(q.Pix))
	out = append(out, byte(len(q.Lang)))
	out = append(out, q.Lang...)
	out = append(out, q.PSM)
	out = binary.BigEndian.AppendUint32(out, q.DeadlineMs)
	out = binary.BigEndian.AppendUint32(out, uint32(q.Width))
	out = binary.BigEndian.AppendUint32(out, uint32(q.Height))
	return append(out, q.Pix...), nil
}

// DecodeRequest reads a request payload; Pix aliases p.
func DecodeRequest(p []byte) (*Request, error) {
	if len(p) < requestFixed {
		return nil, frameErr("request of %d bytes is shorter than its fixed part", len(p))
	}
	n := int(p[0])
	if len(p) < requestFixed+n {
		return nil, frameErr("request of %d bytes cannot hold a %d byte language", len(p), n)
	}
	q := &Request{Lang: string(p[1 : 1+n])}
	p = p[1+n:]
	q.PSM = p[0]
	q.DeadlineMs = binary.BigEndian.Uint32(p[1:5])
	w, h := binary.BigEndian.Uint32(p[5:9]), binary.BigEndian.Uint32(p[9:13])
	if w > MaxSide || h > MaxSide {
		return nil, frameErr("picture of %dx%d is over %dx%d", w, h, MaxSide, MaxSide)
	}
	q.Width, q.Height, q.Pix = int(w), int(h), p[13:]
	if err := q.check(); err != nil {
		return nil, err
	}
	return q, nil
}
