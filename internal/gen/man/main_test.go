package main

import (
	"github.com/dvvhq/dvv/internal/testbed"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/cli"
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
		if !strings.HasPrefix(string(b), ".TH ") || !strings.Contains(string(b), ".SH NAME") {
			t.Errorf("%s is not a man page: %.80q", name, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "dvv-gen-docs.1")); err == nil {
		t.Errorf("a hidden command got a page")
	}
}

// render formats a page as man(1) shows it, wide enough that no line of
// SYNOPSIS wraps, and fails on any groff warning (a malformed request).
func render(t *testing.T, page string) string {
	t.Helper()
	testbed.Need(t, "groff")
	var warn strings.Builder
	check := exec.Command("groff", "-man", "-ww", "-z", page)
	check.Stderr = &warn
	if err := check.Run(); err != nil || warn.Len() > 0 {
		t.Errorf("groff warns on %s: %v %s", filepath.Base(page), err, warn.String())
	}
	cmd := exec.Command("man", "-l", "-P", "cat", page)
	if _, err := exec.LookPath("man"); err != nil {
		cmd = exec.Command("groff", "-man", "-Tutf8", "-P", "-cbou", page)
	}
	cmd.Env = append(os.Environ(), "MANWIDTH=200", "LC_ALL=C.UTF-8")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rendering %s: %v\n%s", page, err, out)
	}
	return string(out)
}

var heading = regexp.MustCompile(`(?m)^([A-Z][A-Z ]+)$`)

// sections splits a rendered page by its headings.
func sections(text string) map[string]string {
	out := map[string]string{}
	idx := heading.FindAllStringSubmatchIndex(text, -1)
	for i, m := range idx {
		end := len(text)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out[text[m[2]:m[3]]] = text[m[1]:end]
	}
	return out
}

// SYNOPSIS shows every positional argument the command's Use names.
func TestSynopsisHasPositionalArguments(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
				continue
			}
			walk(sub)
			_, args, ok := strings.Cut(sub.Use, " ")
			if !ok {
				continue
			}
			page := filepath.Join(dir, strings.ReplaceAll(sub.CommandPath(), " ", "-")+".1")
			syn := sections(render(t, page))["SYNOPSIS"]
			line := strings.Join(strings.Fields(syn), " ")
			if !strings.HasPrefix(line, sub.CommandPath()+" ") {
				t.Errorf("%s: SYNOPSIS %q does not start with the command", page, line)
			}
			for _, a := range regexp.MustCompile(`<[^<>]+>|\[[^\[\]]+\]`).FindAllString(args, -1) {
				if !strings.Contains(line, a) {
					t.Errorf("%s: SYNOPSIS %q lacks %s (Use %q)", filepath.Base(page), line, a, sub.Use)
				}
			}
			checked++
		}
	}
	walk(cli.Command())
	if checked < 10 {
		t.Fatalf("only %d commands with arguments were checked", checked)
	}
	click := sections(render(t, filepath.Join(dir, "dvv-click.1")))["SYNOPSIS"]
	if got := strings.Join(strings.Fields(click), " "); got != "dvv click [flags] <limbId> <x> <y>" {
		t.Errorf("dvv-click SYNOPSIS is %q", got)
	}
}

// dvv.1 states the socket path whole, every exit status, the environment
// and the files; a sub-command's page carries the exit statuses too.
func TestRootPageSections(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	root := render(t, filepath.Join(dir, "dvv.1"))
	secs := sections(root)
	for _, want := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"} {
		if _, ok := secs[want]; !ok {
			t.Errorf("dvv.1 has no %s section; it has %v", want, keys(secs))
		}
	}
	for _, want := range []string{"/tmp/dvv<uid>/default.sock", "$XDG_RUNTIME_DIR/dvv/default.sock"} {
		if !strings.Contains(secs["OPTIONS"], want) {
			t.Errorf("dvv.1's --socket lacks %q:\n%s", want, secs["OPTIONS"])
		}
	}
	for _, status := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"} {
		if !regexp.MustCompile(`(?m)^\s+` + status + `\s`).MatchString(secs["EXIT STATUS"]) {
			t.Errorf("EXIT STATUS lacks status %s:\n%s", status, secs["EXIT STATUS"])
		}
	}
	for _, want := range []string{"DAEMON_UNAVAILABLE", "GEOMETRY_CHANGED"} {
		if !strings.Contains(secs["EXIT STATUS"], want) {
			t.Errorf("EXIT STATUS does not name %s", want)
		}
	}
	for _, want := range []string{"DVV_SOCKET", "DVV_TOKEN", "DVV_SESSION", "XDG_RUNTIME_DIR"} {
		if !strings.Contains(secs["ENVIRONMENT"], want) {
			t.Errorf("ENVIRONMENT lacks %s", want)
		}
	}
	for _, want := range []string{"/tmp/dvv<uid>/<id>.sock", "hosts.json", "credentials"} {
		if !strings.Contains(secs["FILES"], want) {
			t.Errorf("FILES lacks %s", want)
		}
	}
	for _, want := range []string{"dvvd(1)", "dvvmcp(1)", "dvv-click(1)"} {
		if !strings.Contains(secs["SEE ALSO"], want) {
			t.Errorf("SEE ALSO lacks %s", want)
		}
	}
	run := sections(render(t, filepath.Join(dir, "dvv-run.1")))
	if !strings.Contains(run["EXIT STATUS"], "124") {
		t.Errorf("dvv-run.1 does not say 124:\n%s", run["EXIT STATUS"])
	}
}

// dvvd and dvvmcp write their own pages (--gen-man) with the same sections.
func TestDaemonAndBridgePages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dvvd and dvvmcp")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+"/", "../../../cmd/dvvd", "../../../cmd/dvvmcp")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	for _, prog := range []string{"dvvd", "dvvmcp"} {
		if out, err := exec.Command(filepath.Join(bin, prog), "--gen-man", dir).CombinedOutput(); err != nil {
			t.Fatalf("%s --gen-man: %v\n%s", prog, err, out)
		}
		secs := sections(render(t, filepath.Join(dir, prog+".1")))
		for _, want := range []string{"SYNOPSIS", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"} {
			if _, ok := secs[want]; !ok {
				t.Errorf("%s.1 has no %s section; it has %v", prog, want, keys(secs))
			}
		}
		if !strings.Contains(secs["FILES"], "/tmp/dvv<uid>/") {
			t.Errorf("%s.1 FILES lacks /tmp/dvv<uid>/:\n%s", prog, secs["FILES"])
		}
	}
	d := sections(render(t, filepath.Join(dir, "dvvd.1")))
	if !strings.Contains(d["OPTIONS"], "$XDG_RUNTIME_DIR/dvv/<id>.sock, else /tmp/dvv<uid>/<id>.sock") {
		t.Errorf("dvvd.1 --id does not show the socket path:\n%s", d["OPTIONS"])
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
