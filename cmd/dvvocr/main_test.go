package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/dvvhq/dvv/pkg/ocr/pipe"
)

// fake reads a picture as its size; "zzz" has no data.
type fake struct{ reads int }

func (f *fake) version() string { return "fake 1" }

func (f *fake) read(q *pipe.Request) ([]byte, error) {
	f.reads++
	if q.Lang == "zzz" {
		return nil, fmt.Errorf("%w: loading %q failed", errUnavailable, q.Lang)
	}
	return []byte(fmt.Sprintf("%dx%d", q.Width, q.Height)), nil
}

func frame(t *testing.T, kind byte, p []byte) []byte {
	var b bytes.Buffer
	if err := pipe.WriteFrame(&b, kind, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func req(t *testing.T, lang string, w, h int) []byte {
	p, err := (&pipe.Request{Lang: lang, PSM: 4, Width: w, Height: h, Pix: make([]byte, w*h)}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	return frame(t, pipe.KindRecognize, p)
}

// answers decodes everything the worker wrote.
func answers(t *testing.T, out []byte) (kinds string, payloads []string) {
	r := bytes.NewReader(out)
	for {
		k, p, err := pipe.ReadFrame(r, pipe.MaxAnswer)
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("the worker wrote a bad frame: %v", err)
		}
		kinds += string(k)
		payloads = append(payloads, string(p))
	}
}

func TestServe(t *testing.T) {
	in := append(append(req(t, "eng", 3, 2), req(t, "zzz", 1, 1)...), req(t, "eng", 5, 1)...)
	var out bytes.Buffer
	f := &fake{}
	if err := serve(f, bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	kinds, p := answers(t, out.Bytes())
	if kinds != "HTUT" || p[0] != "fake 1" || p[1] != "3x2" || p[3] != "5x1" {
		t.Fatalf("%q %q", kinds, p)
	}
}

// TestServeBadInput: a malformed frame or request is answered with an
// error frame and ends the worker (dvvd starts another); nothing is read.
func TestServeBadInput(t *testing.T) {
	good := req(t, "eng", 2, 2)
	badLang, _ := (&pipe.Request{Lang: "eng", Width: 1, Height: 1, Pix: []byte{0}}).Encode()
	badLang[1] = '/' // "/ng": not a language list
	for name, in := range map[string][]byte{
		"garbage":        []byte("hello, worker"),
		"answer kind":    frame(t, pipe.KindTSV, []byte("x")),
		"cut short":      good[:len(good)-1],
		"bad language":   frame(t, pipe.KindRecognize, badLang),
		"size mismatch":  frame(t, pipe.KindRecognize, good[8:len(good)-1]),
		"over the bound": {'D', 'V', 1, 'R', 0xff, 0xff, 0xff, 0xff},
	} {
		var out bytes.Buffer
		f := &fake{}
		err := serve(f, bytes.NewReader(in), &out)
		if !errors.Is(err, pipe.ErrFrame) {
			t.Errorf("%s: serve ended with %v", name, err)
		}
		if kinds, _ := answers(t, out.Bytes()); kinds != "HE" || f.reads != 0 {
			t.Errorf("%s: answered %q after %d reads", name, kinds, f.reads)
		}
	}
}
