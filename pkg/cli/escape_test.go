package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestEscapeText: control characters show as escapes, text and layout
// stay as written.
func TestEscapeText(t *testing.T) {
	for _, c := range []struct {
		in, lines, one string
	}{
		{"plain text — ünïcode 漢字", "plain text — ünïcode 漢字", "plain text — ünïcode 漢字"},
		{"\x1b]0;OWNED\a", `\x1b]0;OWNED\x07`, `\x1b]0;OWNED\x07`},
		{"a\nb\tc\r", "a\nb\tc\\r", `a\nb\tc\r`},
		{"\u009b31m", `\u009b31m`, `\u009b31m`},
		{"bad \xff byte \x7f", `bad \xff byte \x7f`, `bad \xff byte \x7f`},
		{`back\slash`, `back\slash`, `back\slash`},
	} {
		if got := escapeText(c.in, true); got != c.lines {
			t.Errorf("escapeText(%q, keepLayout) = %q, want %q", c.in, got, c.lines)
		}
		if got := oneLine(c.in); got != c.one {
			t.Errorf("oneLine(%q) = %q, want %q", c.in, got, c.one)
		}
	}
}

// TestHumanStreamsEscapeDataStreamsDoNot: what a command prints for a
// person is escaped; data written to the raw streams is not.
func TestHumanStreamsEscapeDataStreamsDoNot(t *testing.T) {
	var out, errOut bytes.Buffer
	e := &env{}
	e.humanStreams(&out, &errOut)
	e.stdout.Write([]byte("desktop: \x1b[2J\n"))
	e.dataOut().Write([]byte("\x1b[1mbold\x1b[0m"))
	e.stderr.Write([]byte("\x1b]0;t\a\n"))
	if got, want := out.String(), "desktop: \\x1b[2J\n\x1b[1mbold\x1b[0m"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if got, want := errOut.String(), "\\x1b]0;t\\x07\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

// TestForeignLeaseTextStaysOnOneLine: a lease holder and reason with an
// escape sequence and a newline (from a dvvd that let them through) print
// as one escaped line in control status, and --json keeps them whole.
func TestForeignLeaseTextStaysOnOneLine(t *testing.T) {
	lease := &wire.Lease{Holder: "agent\x1b]0;OWNED\a", Reason: "x\n$ sudo rm -rf ~ \u009b2J"}
	answer := func(*sentReq) (wire.Answer, error) {
		return &wire.ControlAnswer{Lease: lease}, nil
	}
	_, code, out, errs := answered(t, "", answer, "control", "status", "vnc-1")
	if code != 0 || strings.ContainsAny(out+errs, "\x1b\a\u009b") || strings.Contains(out, "\n$ sudo") {
		t.Fatalf("control status printed the text raw: exit %d %q %q", code, out, errs)
	}
	if !strings.Contains(out, `held by agent\x1b]0;OWNED\x07 — x\n$ sudo rm -rf ~ \u009b2J`) {
		t.Errorf("control status: %q", out)
	}
	_, _, out, _ = answered(t, "", answer, "control", "status", "vnc-1", "--json")
	var got struct{ Lease wire.Lease }
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Lease.Holder != lease.Holder || got.Lease.Reason != lease.Reason {
		t.Errorf("--json: %v %q", err, out)
	}
	if strings.Contains(out, "\u009b") {
		t.Errorf("--json carries a raw C1 control: %q", out)
	}
}

// TestListsEscapeForeignNames: a remote file name, a discovered host's
// name and a token label holding an escape sequence and a newline each
// print as one escaped table cell.
func TestListsEscapeForeignNames(t *testing.T) {
	const evil = "x\x1b]0;OWNED\a\n$ fake"
	const shown = `x\x1b]0;OWNED\x07\n$ fake`
	for _, c := range []struct {
		args   []string
		answer wire.Answer
	}{
		{[]string{"files", "ls", "vnc-1", "/tmp"}, &wire.FilesAnswer{Files: &wire.FilesResult{Action: "list", Entries: []wire.FileEntry{{Name: evil, Kind: "file"}}}}},
		{[]string{"hosts"}, &wire.HostsAnswer{Hosts: []wire.Host{{ID: "mdns-1", Name: evil, Protocol: "vnc", Address: "10.0.0.9"}}}},
		{[]string{"token", "ls"}, &wire.TokenListAnswer{Tokens: []wire.TokenInfo{{ID: "t1", Role: "observer", Label: evil}}}},
	} {
		_, code, out, errs := answered(t, "", func(*sentReq) (wire.Answer, error) { return c.answer, nil }, c.args...)
		if code != 0 || strings.ContainsAny(out+errs, "\x1b\a") || strings.Contains(out, "\n$ fake") || !strings.Contains(out, shown) {
			t.Errorf("dvv %v: exit %d\n%s%s", c.args, code, out, errs)
		}
	}
}
