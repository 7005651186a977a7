package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, io.NopCloser(strings.NewReader("")), nopWriteCloser{&out}, &errb)
	return code, out.String(), errb.String()
}

func TestGenDocsMatchesCheckedIn(t *testing.T) {
	code, out, errs := runMain("--gen-docs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	have, err := os.ReadFile("../../docs/tools.md")
	if err != nil || string(have) != out {
		t.Fatalf("docs/tools.md differs from --gen-docs (%v); regenerate it", err)
	}
}

func TestFlags(t *testing.T) {
	if code, out, _ := runMain("--version"); code != 0 || !strings.HasPrefix(out, "dvvmcp ") {
		t.Errorf("--version: %d %q", code, out)
	}
	if code, _, errs := runMain("stray"); code != 2 || !strings.Contains(errs, "only flags") {
		t.Errorf("stray argument: %d %q", code, errs)
	}
	if code, _, errs := runMain("--no-such-flag"); code != 2 || !strings.Contains(errs, "Usage") {
		t.Errorf("unknown flag: %d %q", code, errs)
	}
	// stdin at EOF: the client went away before saying anything; a clean exit.
	if code, out, errs := runMain("--socket", "/nonexistent.sock"); code != 0 || out != "" {
		t.Errorf("empty session: %d %q %q", code, out, errs)
	}
}
