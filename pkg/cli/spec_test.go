package cli

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

func specOf(t *testing.T, op string) *wire.OpSpec {
	t.Helper()
	s, ok := wire.Spec(op)
	if !ok {
		t.Fatalf("no op %s", op)
	}
	return s
}

func valuesOf(t *testing.T, op, field string) []string {
	t.Helper()
	f, ok := specOf(t, op).Field(field)
	if !ok || len(f.Values) == 0 {
		t.Fatalf("op %s has no closed field %s", op, field)
	}
	return f.Values
}

// TestFlagsFollowTheSpec: the values a flag's help lists, the values the
// shell completes and the values click accepts are the op table's, so a
// value added to or taken from pkg/wire's table reaches the CLI or fails
// here.
func TestFlagsFollowTheSpec(t *testing.T) {
	closed := []struct {
		cmd    string // command line up to the flag
		flag   string
		values []string
	}{
		{"click vnc-1 1 2", "action", specOf(t, wire.OpClick).Variants},
		{"click vnc-1 1 2", "button", valuesOf(t, wire.OpClick, "button")},
		{"click vnc-1 1 2", "direction", valuesOf(t, wire.OpClick, "direction")},
		{"screen vnc-1", "form", specOf(t, wire.OpScreen).Variants},
		{"wait vnc-1", "until", specOf(t, wire.OpWait).Variants},
		{"open x", "protocol", wire.ProtocolNames()},
	}
	for _, c := range closed {
		words := strings.Fields(c.cmd)
		fields := append(append([]string{"__complete"}, words...), "--"+c.flag, "")
		_, code, out, errs := sent(t, fields...)
		got := strings.Split(strings.TrimSpace(out), "\n")
		got = got[:len(got)-1] // the directive line
		if code != 0 || !slices.Equal(got, c.values) {
			t.Errorf("complete %s --%s: exit %d %q %q; the op table says %q", c.cmd, c.flag, code, got, errs, c.values)
		}
		if c.flag == "protocol" {
			continue // its help names the default ports, from the registry
		}
		_, _, help, _ := sent(t, words[0], "--help")
		if want := orListOf(c.values); !strings.Contains(help, want) {
			t.Errorf("%s --help does not list --%s as %q:\n%s", words[0], c.flag, want, help)
		}
	}
}

// TestClickActionsAreTheOps: click accepts every action of the op table
// (with what the table requires for it), refuses any other naming the
// table's set, and refuses an action without a field the table requires
// for it, naming the flag.
func TestClickActionsAreTheOps(t *testing.T) {
	spec := specOf(t, wire.OpClick)
	flagOf := map[string]string{"toX": "--to-x", "toY": "--to-y", "direction": "--direction"}
	for _, action := range spec.Variants {
		args := []string{"click", "vnc-1", "1", "2", "--action", action}
		var required []string
		for _, f := range spec.Fields {
			if f.RequiredFor(action) && f.Name != "action" && f.Name != "x" && f.Name != "y" {
				flag, ok := flagOf[f.Name]
				if !ok {
					t.Fatalf("click %s requires %s, which this test has no flag for", action, f.Name)
				}
				required = append(required, flag)
				value := "3"
				if len(f.Values) > 0 {
					value = f.Values[0]
				}
				args = append(args, flag, value)
			}
		}
		req, code, _, errs := sent(t, args...)
		if code != 0 || req == nil || req.Action != action {
			t.Errorf("click --action %s: exit %d %q, sent %+v", action, code, errs, req)
		}
		for _, flag := range required {
			without := slices.Clone(args)
			i := slices.Index(without, flag)
			without = slices.Delete(without, i, i+2)
			req, code, _, errs := sent(t, without...)
			if code != wire.ExitUsage || req != nil || !strings.Contains(errs, flag) {
				t.Errorf("click --action %s without %s: exit %d %q, sent %+v", action, flag, code, errs, req)
			}
		}
	}
	req, code, _, errs := sent(t, "click", "vnc-1", "1", "2", "--action", "tap")
	if code != wire.ExitUsage || req != nil || !strings.Contains(errs, orListOf(spec.Variants)) {
		t.Errorf("click --action tap: exit %d %q, sent %+v", code, errs, req)
	}
}

// TestControlActionsAreTheOps: dvv control has one sub-command per action
// of the op, and --wait-ms exactly where the table takes waitMs.
func TestControlActionsAreTheOps(t *testing.T) {
	spec := specOf(t, wire.OpControl)
	waitMs, _ := spec.Field("waitMs")
	root := newRoot(&env{getenv: func(string) string { return "" }})
	control, _, err := root.Find([]string{"control"})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, c := range control.Commands() {
		if c.Name() == "takeover" || c.Name() == "handback" {
			continue
		}
		action := strings.ReplaceAll(c.Name(), "-", "_")
		actions = append(actions, action)
		if c.Short == "" {
			t.Errorf("control %s has no help line", c.Name())
		}
		if has := c.Flags().Lookup("wait-ms") != nil; has != waitMs.Applies(action) {
			t.Errorf("control %s: --wait-ms %v, the op table says %v", c.Name(), has, waitMs.Applies(action))
		}
	}
	slices.Sort(actions)
	want := slices.Sorted(slices.Values(spec.Variants))
	if !slices.Equal(actions, want) {
		t.Errorf("control sub-commands %v, the op table's actions %v", actions, want)
	}
	run, _, err := root.Find([]string{"group", "run"})
	if err != nil || !strings.Contains(run.Short, strings.Join(specOf(t, wire.OpGroupRun).Variants, ", ")) {
		t.Errorf("group run's help %q does not list the op's actions (%v)", run.Short, err)
	}
}

// orListOf writes the values as help text does ("a, b or c"); written
// here again so the test does not read them through the code it checks.
func orListOf(values []string) string {
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// TestEveryActionHasACommand: for each op whose variants are actions,
// the CLI's commands send exactly the op table's set, so an action added
// to the table without a command (or a command sending an action dvvd
// does not know) fails here. An absent action is the op's first (share
// start, viewer open). Click has its own test; group run passes any tool
// name on to dvvd.
func TestEveryActionHasACommand(t *testing.T) {
	dir := t.TempDir()
	local := dir + "/up.txt"
	if err := os.WriteFile(local, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"control acquire vnc-1", "control release vnc-1", "control status vnc-1", "control yield vnc-1", "control yield-status vnc-1",
		"clipboard get vnc-1", "clipboard set vnc-1 hi",
		"files ls ssh-1 /", "files get ssh-1 /r " + dir + "/down.txt", "files put ssh-1 " + local + " /r", "files mkdir ssh-1 /d",
		"files rm ssh-1 /d", "files mv ssh-1 /a /b", "files home ssh-1", "files stat ssh-1 /r", "files read ssh-1 /r --offset 2 --length 3",
		"transfer status ssh-1", "transfer cancel ssh-1 --id t-1",
		"record start vnc-1", "record stop vnc-1", "record list vnc-1",
		"share vnc-1", "share vnc-1 --stop",
		"pause vnc-1", "resume vnc-1",
		"viewer --no-open", "viewer --no-open --read-only",
		"element vnc-1 E focus", "element vnc-1 E set-text hi", "element vnc-1 E insert hi", "element vnc-1 E invoke",
		"element vnc-1 E toggle on", "element vnc-1 E select", "element vnc-1 E value 3", "element vnc-1 E expand",
		"element vnc-1 E collapse", "element vnc-1 E read", "element vnc-1 E locate",
		"window vnc-1 0x1 activate", "window vnc-1 0x1 move 1 2", "window vnc-1 0x1 resize 3 4", "window vnc-1 0x1 close",
		"workspaces vnc-1", "workspaces vnc-1 1",
	}
	sentActions := map[string][]string{}
	for _, line := range lines {
		req, _, _, errs := sent(t, strings.Fields(line)...)
		if req == nil {
			t.Errorf("dvv %s sent nothing: %s", line, errs)
			continue
		}
		action := req.Action
		if action == "" {
			action = specOf(t, req.Op).Variants[0]
		}
		if !slices.Contains(sentActions[req.Op], action) {
			sentActions[req.Op] = append(sentActions[req.Op], action)
		}
	}
	for op, got := range sentActions {
		spec := specOf(t, op)
		if spec.Variant != "action" {
			t.Errorf("op %s has no actions in the table but the CLI sent %v", op, got)
			continue
		}
		slices.Sort(got)
		if want := slices.Sorted(slices.Values(spec.Variants)); !slices.Equal(got, want) {
			t.Errorf("the CLI sends %s actions %v; the op table has %v", op, got, want)
		}
	}
	for _, s := range wire.Ops() {
		if _, ok := sentActions[s.Name]; s.Variant == "action" && !ok && s.Name != wire.OpGroupRun && s.Name != wire.OpClick {
			t.Errorf("op %s has actions %v, and this test sends none of them", s.Name, s.Variants)
		}
	}
}
