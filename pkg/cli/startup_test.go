package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dvvhq/dvv/pkg/wire"
)

// The table newRootFor picks from names each command as it names itself.
func TestCommandTableNames(t *testing.T) {
	root := newRoot(&env{getenv: func(string) string { return "" }})
	built := root.Commands()
	table := commands()
	if len(built) != len(table) {
		t.Fatalf("the tree has %d top-level commands, the table %d", len(built), len(table))
	}
	for i, c := range built {
		want := append([]string{c.Name()}, c.Aliases...)
		if !slices.Equal(table[i].names, want) {
			t.Errorf("command %d: the table says %q, the command %q", i, table[i].names, want)
		}
	}
}

// runWith runs args through the tree build makes, as Run does, with dvvd's
// answer an empty success.
func runWith(build func(*env, []string) *cobra.Command, args []string) (req string, code int, stdout, stderr string) {
	var out, errOut strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, ctx: context.Background(),
		getenv: func(string) string { return "" },
		send: func(r wire.Enveloped) (*wire.Reply, error) {
			req = r.Op()
			return emptyReply(r.Op()), nil
		}}
	root := build(e, args)
	root.SetArgs(args)
	code = e.finish(root.ExecuteContext(context.Background()))
	return req, code, out.String(), errOut.String()
}

// A command line gives the same request, output and exit status whether
// the whole tree is built or only what the line names.
func TestPartialTreeBehavesAsWholeTree(t *testing.T) {
	whole := func(e *env, _ []string) *cobra.Command { return newRoot(e) }
	lines := [][]string{
		{}, {"--help"}, {"-h"}, {"--version"}, {"-v"}, {"--json", "--version"}, {"--version", "--help"},
		{"help"}, {"help", "ping"}, {"opne"}, {"hosts", "ad"}, {"--bogus", "ping"}, {"--", "ping"},
		{"ping", "extra"}, {"--socket", "/nonexistent", "ping", "--help"}, {"--timeout=1s", "--json", "status", "l1"},
		{"--verify-ms", "0", "click", "l1", "1", "2", "--help"}, {"ls"}, {"limbs", "list"}, {"files", "list", "--help"},
		{"completion", "bash"}, {"status", "l1"}, {"--json", "status", "l1"}, {"status"},
	}
	root := newRoot(&env{getenv: func(string) string { return "" }})
	for _, c := range root.Commands() {
		lines = append(lines, []string{c.Name(), "--help"}, []string{c.Name(), "--bogus"})
		if c.Annotations[groupAnnotation] != "" {
			lines = append(lines, []string{c.Name()}, []string{c.Name(), "nope"})
		}
		for _, sub := range c.Commands() {
			lines = append(lines, []string{c.Name(), sub.Name(), "--help"})
		}
	}
	for _, args := range lines {
		wr, wc, wo, we := runWith(whole, args)
		pr, pc, po, pe := runWith(newRootFor, args)
		if wr != pr || wc != pc || wo != po || we != pe {
			t.Errorf("dvv %s differs:\nwhole tree:   op %q exit %d\n%s%s\npartial tree: op %q exit %d\n%s%s",
				strings.Join(args, " "), wr, wc, wo, we, pr, pc, po, pe)
		}
	}
}

func TestCommandName(t *testing.T) {
	cases := []struct {
		args []string
		name string
		ok   bool
	}{
		{nil, "", false},
		{[]string{"--version"}, "", true},
		{[]string{"-v", "--json"}, "", true},
		{[]string{"--version", "-h"}, "", false},
		{[]string{"ping"}, "ping", true},
		{[]string{"--socket", "ssh://h/x", "--json", "ping"}, "ping", true},
		{[]string{"--socket=/s", "--timeout", "2s", "--verify-ms=0", "click"}, "click", true},
		{[]string{"--socket"}, "", false},
		{[]string{"-x", "ping"}, "", false},
		{[]string{"--", "ping"}, "", false},
		{[]string{"__complete", "st"}, "__complete", true},
	}
	for _, c := range cases {
		name, ok := commandName(c.args)
		if name != c.name || ok != c.ok {
			t.Errorf("commandName(%q) = %q, %v; want %q, %v", c.args, name, ok, c.name, c.ok)
		}
	}
}

func BenchmarkRootForPing(b *testing.B) {
	e := &env{getenv: func(string) string { return "" }}
	for b.Loop() {
		newRootFor(e, []string{"ping"})
	}
}

func BenchmarkRootWhole(b *testing.B) {
	e := &env{getenv: func(string) string { return "" }}
	for b.Loop() {
		newRoot(e)
	}
}

func TestCatchesSignals(t *testing.T) {
	cases := []struct {
		args []string
		want bool
	}{
		{nil, false}, {[]string{"--version"}, false}, {[]string{"ping"}, false}, {[]string{"--json", "ping"}, false},
		{[]string{"help", "wait"}, false}, {[]string{"__complete", "status", ""}, false}, {[]string{"wait", "l1", "--help"}, false},
		{[]string{"--bogus", "wait"}, false},
		{[]string{"wait", "l1", "--until", "stable"}, true}, {[]string{"--socket", "/s", "events"}, true},
		{[]string{"type", "l1", "--", "--help"}, true}, {[]string{"term", "attach", "l1"}, true},
	}
	for _, c := range cases {
		if got := catchesSignals(c.args); got != c.want {
			t.Errorf("catchesSignals(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// TestEveryGlobalFlagIsSkipped: each flag the root defines, given before a
// command, leaves the command found and Ctrl+C caught, so a global flag
// added to the root cannot quietly turn signal handling off.
func TestEveryGlobalFlagIsSkipped(t *testing.T) {
	root := newBareRoot(&env{})
	seen := 0
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		seen++
		given := []string{"--" + f.Name}
		if f.NoOptDefVal == "" {
			given = append(given, "1")
		}
		args := append(given, "wait", "l1")
		if name, ok := commandName(args); name != "wait" || !ok {
			t.Errorf("commandName(%q) = %q, %v; want wait", args, name, ok)
		}
		if !catchesSignals(args) {
			t.Errorf("catchesSignals(%q) is false", args)
		}
	})
	if seen == 0 {
		t.Fatal("the root defines no persistent flags")
	}
}
