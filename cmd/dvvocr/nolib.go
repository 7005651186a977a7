//go:build !(cgo && libtesseract)

package main

import "errors"

// Built without libtesseract, dvvocr says so at start; dvvd then reads text
// with the tesseract program.
func newEngine() (engine, error) {
	return nil, errors.New("built without libtesseract: build it with `make build` (needs cgo and libtesseract-dev)")
}
