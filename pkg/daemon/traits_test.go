package daemon

import (
	"slices"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestListedOpsPerKind: what a limb summary lists comes from the traits
// the handlers are registered with (listedOnDesktops, listedOnTerminals,
// perceives): a desktop's input and clipboard ops, a terminal's shell ops,
// run and files on both (a desktop's over its SSH sidecar), and screen on a
// desktop only when it perceives.
func TestListedOpsPerKind(t *testing.T) {
	for _, c := range []struct {
		kind     string
		perceive bool
		want     []string
	}{
		{wire.KindDesktop, true, []string{"status", "signals", "click", "type", "key", "screen", "wait", "clipboard", "run", "files"}},
		{wire.KindDesktop, false, []string{"status", "signals", "click", "type", "key", "wait", "clipboard", "run", "files"}},
		{wire.KindTerminal, false, []string{"status", "signals", "screen", "wait", "run", "term_read", "term_send", "files"}},
	} {
		if got := listed(wire.Builtin(), c.kind, c.perceive); !slices.Equal(got, c.want) {
			t.Errorf("%s (perceive %v) lists %v, want %v", c.kind, c.perceive, got, c.want)
		}
	}
}

// TestActsAreRecorded: every act (an op whose spec says it dispatches
// input) is registered as recorded, so it goes into a recording's act log.
func TestActsAreRecorded(t *testing.T) {
	for _, s := range wire.Ops() {
		if s.Dispatches && !handlers[s.Name].hasTrait(recorded) {
			t.Errorf("act %s is not registered as recorded", s.Name)
		}
	}
}
