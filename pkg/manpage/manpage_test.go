package manpage

import (
	"github.com/dvvhq/dvv/internal/testbed"
	"os/exec"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Text that troff would take for requests or escapes comes out as written.
func TestTextComesOutAsWritten(t *testing.T) {
	testbed.Need(t, "groff")
	c := &cobra.Command{Use: "tool <file> [more...]", Short: "does — things", Long: "first line\n.so /etc/passwd\n'quoted start\nback\\slash \\fB and `code`\n\n  literal  spaced\n\nterm\tmeaning"}
	c.Flags().String("path", "/tmp/x<uid>", "where `dir` is")
	page := Page(c, Header{Source: "tool 1", Manual: "m", Sections: []Section{{Title: "Files", Text: "/tmp/a<b>\tc"}}})
	cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-P", "-cbou")
	cmd.Stdin = strings.NewReader(page)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("groff: %v %s\n%s", err, stderr.String(), page)
	}
	text := string(out)
	for _, want := range []string{"tool [flags] <file> [more...]", "does — things", ".so /etc/passwd", "'quoted start", `back\slash \fB and code`, "literal  spaced", "/tmp/a<b>", `--path dir`, `(default "/tmp/x<uid>")`} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q:\n%s", want, text)
		}
	}
}
