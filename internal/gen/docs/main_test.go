package main

import (
	"os"
	"testing"
)

func TestProtocolDocIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Render(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if want != string(b) {
		t.Fatal("docs/protocol.md's error-code table is stale: run `make docs`")
	}
}
