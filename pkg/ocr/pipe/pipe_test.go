package pipe

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func request(t testing.TB) []byte {
	q := &Request{Lang: "eng+deu", PSM: 4, DeadlineMs: 1500, Width: 3, Height: 2, Pix: []byte{1, 2, 3, 4, 5, 6}}
	p, err := q.Encode()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteFrame(&b, KindRecognize, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRequestRoundTrip(t *testing.T) {
	kind, p, err := ReadFrame(bytes.NewReader(request(t)), MaxRequest)
	if err != nil || kind != KindRecognize {
		t.Fatalf("%q %v", kind, err)
	}
	q, err := DecodeRequest(p)
	if err != nil {
		t.Fatal(err)
	}
	if q.Lang != "eng+deu" || q.PSM != 4 || q.DeadlineMs != 1500 || q.Width != 3 || q.Height != 2 || !bytes.Equal(q.Pix, []byte{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("%+v", q)
	}
}

func TestMalformedFrames(t *testing.T) {
	good := request(t)
	lied := append([]byte(nil), good...)
	lied[7]++ // one byte more than was sent
	big := append([]byte(nil), good[:8]...)
	big[4] = 0x7f // 2 GiB announced
	for name, in := range map[string][]byte{
		"bad magic":      append([]byte("XX"), good[2:]...),
		"other version":  append([]byte{'D', 'V', 9}, good[3:]...),
		"unknown kind":   append([]byte{'D', 'V', 1, 'Z'}, good[4:]...),
		"short header":   good[:5],
		"cut payload":    good[:len(good)-1],
		"length lies":    lied,
		"over the bound": big,
	} {
		_, _, err := ReadFrame(bytes.NewReader(in), MaxRequest)
		if !errors.Is(err, ErrFrame) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, _, err := ReadFrame(bytes.NewReader(nil), MaxRequest); err != io.EOF {
		t.Errorf("empty stream: %v", err)
	}
}

func TestMalformedRequests(t *testing.T) {
	for name, q := range map[string]Request{
		"path as language": {Lang: "../x", Width: 1, Height: 1, Pix: []byte{0}},
		"flag as language": {Lang: "-c", Width: 1, Height: 1, Pix: []byte{0}},
		"no pixels":        {Lang: "eng", Width: 0, Height: 1},
		"too wide":         {Lang: "eng", Width: MaxSide + 1, Height: 1, Pix: make([]byte, MaxSide+1)},
		"short pixels":     {Lang: "eng", Width: 2, Height: 2, Pix: []byte{0}},
		"psm out of range": {Lang: "eng", PSM: 14, Width: 1, Height: 1, Pix: []byte{0}},
	} {
		if _, err := q.Encode(); !errors.Is(err, ErrFrame) {
			t.Errorf("%s encoded: %v", name, err)
		}
	}
	_, p, _ := ReadFrame(bytes.NewReader(request(t)), MaxRequest)
	for name, in := range map[string][]byte{
		"truncated":      p[:10],
		"language over":  append([]byte{200}, p[1:]...),
		"extra pixel":    append(append([]byte(nil), p...), 0),
		"missing pixel":  p[:len(p)-1],
		"huge dimension": append(append([]byte(nil), p[:len(p)-6-8]...), 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1),
	} {
		if _, err := DecodeRequest(in); !errors.Is(err, ErrFrame) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzDecode: whatever bytes arrive, decoding answers a frame or an
// error, never panics, and never holds more than the bound.
func FuzzDecode(f *testing.F) {
	f.Add(request(f))
	f.Add([]byte("DV\x01T\x00\x00\x00\x03a\tb"))
	// dvvocr's answer: words' rows and, after them, characters' (level 6).
	f.Add([]byte("DV\x01T\x00\x00\x00\x3b" + "5\t1\t1\t1\t1\t1\t20\t20\t7\t24\t96\ta\n" + "6\t1\t1\t1\t1\t1\t20\t20\t7\t24\t99.50\ta\n"))
	f.Add([]byte("DV\x01R\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		for {
			kind, p, err := ReadFrame(r, 1<<16)
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrFrame) {
					t.Fatalf("uncoded error %v", err)
				}
				return
			}
			if len(p) > 1<<16 {
				t.Fatalf("payload of %d over the bound", len(p))
			}
			if kind == KindRecognize {
				if q, err := DecodeRequest(p); err == nil && len(q.Pix) != q.Width*q.Height {
					t.Fatalf("accepted %dx%d with %d pixels", q.Width, q.Height, len(q.Pix))
				}
			}
		}
	})
}
