package cli

import (
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
