// Command dvvocr is dvvd's resident text recognition worker: it keeps
// Tesseract's model loaded (libtesseract, through cgo) and reads the grey
// pictures dvvd sends it over stdin, answering each with tesseract's TSV
// (and a row of level 6 for each character read: docs/ocr.md) on stdout,
// in pkg/ocr/pipe's frames. dvvd starts it on first use, one per
// core at most, and restarts it if it dies; dvvd itself stays static.
// docs/ocr.md says why and what it measured.
//
// It is built with cgo and the build tag libtesseract (`make build` does
// both when libtesseract-dev is installed); built otherwise it only says
// so, and dvvd runs the tesseract program instead.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dvvhq/dvv/pkg/ocr/pipe"
)

// engine is what serve needs of the recognizer.
type engine interface {
	version() string
	// read returns the TSV of pix, or errUnavailable (wrapped) when the
	// language data is missing.
	read(q *pipe.Request) ([]byte, error)
}

var errUnavailable = errors.New("language data not installed")

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "dvvocr takes no arguments: dvvd starts it and talks to it over its stdin and stdout")
		os.Exit(2)
	}
	eng, err := newEngine()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dvvocr:", err)
		os.Exit(3)
	}
	if err := serve(eng, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "dvvocr:", err)
		os.Exit(1)
	}
}

// serve answers requests until stdin ends. A malformed frame ends it with
// an error: the stream is out of step and dvvd starts a new worker.
func serve(eng engine, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriterSize(out, 1<<16)
	send := func(kind byte, p []byte) error {
		if err := pipe.WriteFrame(w, kind, p); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := send(pipe.KindHello, []byte(eng.version())); err != nil {
		return err
	}
	for {
		kind, p, err := pipe.ReadFrame(r, pipe.MaxRequest)
		if err == io.EOF {
			return nil
		}
		if err == nil && kind != pipe.KindRecognize {
			err = fmt.Errorf("%w: a %q frame where a request belongs", pipe.ErrFrame, kind)
		}
		var q *pipe.Request
		if err == nil {
			q, err = pipe.DecodeRequest(p)
		}
		if err != nil {
			send(pipe.KindError, []byte(err.Error()))
			return err
		}
		tsv, err := eng.read(q)
		switch {
		case errors.Is(err, errUnavailable):
			err = send(pipe.KindUnavailable, []byte(err.Error()))
		case err != nil:
			err = send(pipe.KindError, []byte(err.Error()))
		case len(tsv) > pipe.MaxAnswer:
			err = send(pipe.KindError, []byte(fmt.Sprintf("%d bytes of output, over the %d byte bound", len(tsv), pipe.MaxAnswer)))
		default:
			err = send(pipe.KindTSV, tsv)
		}
		if err != nil {
			return err
		}
	}
}
