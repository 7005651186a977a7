package system_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/atspi"
	"github.com/dvvhq/dvv/pkg/wire"
)

// maxElementCalls is how many calls reading one element sends at once
// (pkg/atspi's node: role, properties, states, interfaces, bounds).
const maxElementCalls = 5

// TestHostileAccessibleProgramsAreBounded: programs on the session's
// accessibility bus lie to dvvd. One lists its window 100000 times, names
// a button with a megabyte of escapes, makes two panels each other's
// child, and has a table that claims 1e9 children and names its one cell
// 100000 times; another lists 50 windows that never answer a call.
// Through the real dvvd and CLI, inspect reads each window and element
// once (nothing truncated, the cycle read once), names are at most 1024
// bytes, the human output writes no raw escape, the silent program is
// asked once per connection (its own count of calls it never answered),
// wait element settles, and an element of the silent program is refused
// with TIMEOUT.
func TestHostileAccessibleProgramsAreBounded(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Width: 640, Height: 480})
	testbed.StartHostileA11y(t, s.A11yBus, false)
	silent := testbed.StartHostileA11y(t, s.A11yBus, true)
	d := startDaemonIn(t, "", s.SSHD.Home)
	limb := openDesktopWithSidecar(t, d, s)

	var res *wire.InspectResult
	testbed.Eventually(t, 30*time.Second, "the hostile window in dvv inspect", func() bool {
		r := d.dvv("inspect", limb, "--json")
		if r.code != 0 {
			t.Fatalf("inspect failed: %v", r)
		}
		res = response(t, r).Inspect
		for _, w := range res.Windows {
			if w.Title == testbed.HostileA11yTitle {
				return true
			}
		}
		return false
	})
	windows := 0
	for _, w := range res.Windows {
		if w.Title == testbed.HostileA11yTitle {
			windows++
		}
	}
	if windows != 1 {
		t.Errorf("inspect lists the hostile window %d times, want once", windows)
	}
	// An element's calls go out together, so the first window of the
	// silent program leaves those few calls waiting; its other 49 windows
	// must not be asked at all (each would cost its own timeout).
	if n := silent.Unanswered.Load(); n < 1 || n > maxElementCalls {
		t.Errorf("the silent program was left waiting on %d calls by one inspect, want 1 to %d (one element's calls): it must be given up on after its first timeout", n, maxElementCalls)
	}
	if res.Truncated {
		t.Errorf("inspect truncated a window of six elements: a cycle or a repeated child was read more than once")
	}
	seen := map[string]int{}
	var hostile []wire.Element
	for _, e := range res.Elements {
		if e.Window != testbed.HostileA11yTitle {
			continue
		}
		hostile = append(hostile, e)
		seen[e.Name]++
		if len(e.Name) > 1024 || !utf8.ValidString(e.Name) {
			t.Errorf("element %q… has a name of %d bytes, want at most 1024 of UTF-8", e.Name[:min(len(e.Name), 20)], len(e.Name))
		}
	}
	for _, name := range []string{testbed.HostileA11yTitle, "cycle-a", "cycle-b", "liar", "liar/cell"} {
		if seen[name] != 1 {
			t.Errorf("inspect lists %q %d times, want once (elements: %d)", name, seen[name], len(hostile))
		}
	}
	var big wire.Element
	for _, e := range hostile {
		if strings.HasPrefix(e.Name, testbed.HostileA11yName) {
			big = e
		}
	}
	if big.ID == "" {
		t.Fatalf("no element named %q… among %d", testbed.HostileA11yName, len(hostile))
	}
	if len(hostile) != 6 {
		t.Errorf("inspect lists %d elements of the hostile window, want 6", len(hostile))
	}

	human := d.must("inspect", limb, "--window", testbed.HostileA11yTitle)
	if strings.ContainsAny(human.stdout+human.stderr, "\x1b\x07\u009b") {
		t.Errorf("inspect's human output carries raw escapes: %q", human.stdout[:min(len(human.stdout), 300)])
	}
	if len(human.stdout) > 16<<10 {
		t.Errorf("inspect's human output of six elements is %d bytes", len(human.stdout))
	}

	el := response(t, d.must("element", limb, big.ID, "read", "--json")).Element
	if el == nil || len(el.Element.Name) > 1024 {
		t.Errorf("element read answered %+v", el)
	}

	unansweredBefore := silent.Unanswered.Load()
	w := response(t, d.must("wait", limb, "--until", "element", "--name", "cycle-b", "--timeout", "20s", "--json")).Wait
	if !w.Settled || len(w.Elements) != 1 {
		t.Errorf("wait --until element cycle-b: settled %v with %d elements, want one", w.Settled, len(w.Elements))
	}
	// The limb keeps its bus connection, on which the program is still
	// known to be silent: the wait asks it nothing, or one element's calls
	// once that has worn off.
	if n := silent.Unanswered.Load() - unansweredBefore; n > maxElementCalls {
		t.Errorf("the wait left the silent program waiting on %d calls, want at most %d (one element's calls)", n, maxElementCalls)
	}

	id := atspi.ID{Bus: silent.Bus, Window: dbus.ObjectPath("/org/a11y/atspi/accessible/hang/0"),
		Elem: dbus.ObjectPath("/org/a11y/atspi/accessible/hang/0"), Gen: res.Generation}
	wantExit(t, d.dvv("element", limb, id.String(), "read"), wire.Timeout.Info().Exit, wire.Timeout)

	d.must("status", limb) // dvvd is still up
}
