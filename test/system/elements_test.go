package system_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// programPrinted waits until a program's output (its log) holds line.
func programPrinted(t *testing.T, p *testbed.Proc, line string) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(p.Log)
			t.Logf("the program's output: %q", b)
		}
	})
	testbed.Eventually(t, 15*time.Second, "the program printing "+line, func() bool {
		b, _ := os.ReadFile(p.Log)
		for _, l := range strings.Split(string(b), "\n") {
			if l == line {
				return true
			}
		}
		return false
	})
}

// inspectID runs dvv inspect and answers the id of the one element that
// passes want.
func inspectID(t *testing.T, d *daemon, limb string, want func(wire.Element) bool, args ...string) string {
	t.Helper()
	var ids []string
	testbed.Eventually(t, 15*time.Second, "the element in dvv inspect", func() bool {
		r := d.dvv(append([]string{"inspect", limb, "--json"}, args...)...)
		if r.code != 0 {
			return false
		}
		ids = ids[:0]
		for _, el := range response(t, r).Inspect.Elements {
			if want(el) {
				ids = append(ids, el.ID)
			}
		}
		return len(ids) == 1
	})
	return ids[0]
}

// The real CLI on a real session: a check box of a list toggled, another
// clicked by its element id, and a slider's value set, each read back in dvvd's answer and printed by the
// program itself on OK; a value outside the range is refused with its code
// and nothing set; inspect's human output names the element.
func TestElementActsThroughTheCLIAreSeenByTheProgram(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Cookie: true})
	list, listWin := s.Program(t, "checkbed", "zenity", "--list", "--checklist", "--title", "checkbed", "--column", "pick", "--column", "fruit",
		"FALSE", "apple", "FALSE", "pear", "FALSE", "plum")
	scale, _ := s.Program(t, "scalebed", "zenity", "--scale", "--title", "scalebed", "--min-value", "0", "--max-value", "50", "--value", "10")
	d := startDaemonIn(t, "", s.SSHD.Home)
	limb := openDesktopWithSidecar(t, d, s)
	d.must("control", "acquire", limb)

	human := d.must("inspect", limb, "--window", "checkbed", "--name", "pear")
	if !strings.Contains(human.stdout, `table cell "pear"`) || !strings.Contains(human.stdout, "Toggle") {
		t.Fatalf("inspect's lines do not show the pear row's cells:\n%s", human.stdout)
	}
	pear := inspectID(t, d, limb, func(el wire.Element) bool { return el.Name == "pear" && contains(el.Actions, "Toggle") },
		"--window", "checkbed", "--role", "table cell")
	act := response(t, d.must("element", limb, pear, "toggle", "on", "--json")).Element
	if !act.Verified || !contains(act.Element.States, "checked") {
		t.Fatalf("toggle on answered %+v", act)
	}
	// plum's check box by pixels: a click at the centre inspect gave,
	// fenced by its generation (click --element), toggles it as a person's
	// click would. The list is raised first: the slider's dialog, opened
	// later, covers it (a click goes to whatever is on top there).
	xid, _ := strconv.ParseUint(listWin, 10, 32)
	d.must("window", limb, fmt.Sprintf("0x%x", xid), "activate")
	plum := inspectID(t, d, limb, func(el wire.Element) bool { return el.Name == "plum" && contains(el.Actions, "Toggle") },
		"--window", "checkbed", "--role", "table cell")
	d.must("click", limb, "--element", plum)
	ok := inspectID(t, d, limb, func(el wire.Element) bool { return true }, "--window", "checkbed", "--role", "push button", "--name", "OK")
	d.must("element", limb, ok, "invoke")
	programPrinted(t, list, "pear|plum")

	slider := inspectID(t, d, limb, func(el wire.Element) bool { return el.Value != nil && el.Value.Max == 50 }, "--window", "scalebed", "--role", "slider")
	wantExit(t, d.dvv("element", limb, slider, "value", "51"), wire.OutOfBounds.Info().Exit, wire.OutOfBounds)
	act = response(t, d.must("element", limb, slider, "value", "37", "--json")).Element
	if !act.Verified || act.Value == nil || act.Value.Current != 37 {
		t.Fatalf("value 37 answered %+v", act)
	}
	ok = inspectID(t, d, limb, func(el wire.Element) bool { return true }, "--window", "scalebed", "--role", "push button", "--name", "OK")
	d.must("element", limb, ok, "invoke")
	programPrinted(t, scale, "37")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
