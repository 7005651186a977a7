package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedFilesAreCurrent: the Args and Answer structs and the client
// methods were generated from the op table as it is now.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := Files("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if stale := Stale("../../..", files); len(stale) > 0 {
		t.Errorf("%v: no op writes these any more: run `make docs`", stale)
	}
	for path, want := range files {
		got, err := os.ReadFile("../../../" + path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `make docs` (or go run ./internal/gen/args)", path)
		}
	}
}
