package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every visible command gets a page, and the pages are troff with the
// command's own text.
func TestWritesPages(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dvv.1", "dvv-open.1", "dvv-screen.1", "dvv-service-install.1"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.HasPrefix(string(b), ".nh") || !strings.Contains(string(b), ".SH NAME") {
			t.Errorf("%s is not a man page: %.80q", name, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "dvv-gen-docs.1")); err == nil {
		t.Errorf("a hidden command got a page")
	}
}
