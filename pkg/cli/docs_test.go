package cli

import (
	"os"
	"strings"
	"testing"
)

// TestDocsUpToDate fails when docs/cli.md is not what the command tree
// generates. Regenerate with `make docs` (go run ./cmd/dvv gen-docs > docs/cli.md),
// or run this test with DVV_UPDATE_DOCS=1.
func TestDocsUpToDate(t *testing.T) {
	var b strings.Builder
	if err := WriteDocs(&b); err != nil {
		t.Fatal(err)
	}
	const path = "../../docs/cli.md"
	if os.Getenv("DVV_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (generate it: make docs)", path, err)
	}
	if string(have) != b.String() {
		t.Fatalf("docs/cli.md is stale: run `make docs` (go run ./cmd/dvv gen-docs > docs/cli.md) and commit it")
	}
}

// TestDocsCoverEveryCommand: each visible command has a section.
func TestDocsCoverEveryCommand(t *testing.T) {
	var b strings.Builder
	if err := WriteDocs(&b); err != nil {
		t.Fatal(err)
	}
	root := newRoot(&env{getenv: func(string) string { return "" }})
	for _, c := range visible(root) {
		if !strings.Contains(b.String(), "### "+c.CommandPath()+"\n") {
			t.Errorf("no section for %s", c.CommandPath())
		}
	}
	for _, want := range []string{"generationFrom", "last-read", "DVV_SESSION", "| 11 |", "DAEMON_UNAVAILABLE"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("docs do not mention %q", want)
		}
	}
}

// TestHelpWorks: every command's --help renders and exits 0.
func TestHelpWorks(t *testing.T) {
	root := newRoot(&env{getenv: func(string) string { return "" }})
	for _, c := range append(visible(root), root) {
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "dvv")), "--help")
		_, code, out, stderr := sent(t, args...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
}
