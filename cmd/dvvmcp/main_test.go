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
	// An unknown tool set stops dvvmcp before it serves, naming the sets.
	if code, out, errs := runMain("--tools", "text,pictures"); code != 2 || out != "" || !strings.Contains(errs, `unknown tool set "pictures"`) || !strings.Contains(errs, "text, image, structure, evidence, machine, guest, all") {
		t.Errorf("--tools with an unknown set: %d %q %q", code, out, errs)
	}
	t.Setenv("DVV_MCP_TOOLS", "everything")
	if code, _, errs := runMain(); code != 2 || !strings.Contains(errs, `unknown tool set "everything"`) {
		t.Errorf("DVV_MCP_TOOLS with an unknown set: %d %q", code, errs)
	}
	t.Setenv("DVV_MCP_TOOLS", "")
	// --list-tools names what the options serve, and reaches no dvvd.
	if code, out, _ := runMain("--list-tools", "--socket", "/nonexistent.sock"); code != 0 || strings.Count(out, "\treference\n") != 25 || strings.Contains(out, "dvv_find") {
		t.Errorf("--list-tools: %d %q", code, out)
	}
	if code, out, _ := runMain("--list-tools", "--tools", "image"); code != 0 || !strings.HasSuffix(out, "dvv_expect\timage\n") {
		t.Errorf("--list-tools --tools image: %d %q", code, out)
	}
	// stdin at EOF: the client went away before saying anything; a clean exit.
	if code, out, errs := runMain("--socket", "/nonexistent.sock"); code != 0 || out != "" {
		t.Errorf("empty session: %d %q %q", code, out, errs)
	}
}
