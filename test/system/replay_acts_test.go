package system_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestReplayRunsTheChosenActs: a recording of dvv's own acts (a click into
// an xterm, typed text, Return) replayed on a fresh desktop act by act:
// --to 1 needs no text for act 2 and types nothing; --from 2 --to 2 types
// the given text and stops before act 3's Return, as the xterm's program
// shows. Flags replay cannot honour are refused as usage, naming the fix.
func TestReplayRunsTheChosenActs(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool", "xcalc", "xsetroot")
	home := t.TempDir()
	d := startDaemonIn(t, "", home, "XDG_STATE_HOME="+filepath.Join(home, "state"))
	a := startTaskDesktop(t, d, 300, 20)
	rec := response(t, d.must("record", "start", a.limb, "--json")).Recordings[0]
	time.Sleep(time.Second) // the recording's first frame before the first act
	d.must("control", "acquire", a.limb)
	d.must("screen", a.limb, "--out", filepath.Join(t.TempDir(), "s.png")) // a click needs the screen seen
	d.must("click", a.limb, "60", "60")
	d.must("type", a.limb, "ab")
	d.must("key", a.limb, "Return")
	testbed.Eventually(t, 10*time.Second, "the recorded xterm's line", func() bool {
		b, _ := os.ReadFile(a.typed)
		return string(b) == "ab\n"
	})
	d.must("control", "release", a.limb)
	d.must("record", "stop", a.limb)

	b := startTaskDesktop(t, d, 300, 20)
	typed := func() string {
		s, _ := os.ReadFile(b.typed)
		return string(s)
	}
	r := d.dvv("replay", rec.Path, "--limb", b.limb, "--to", "1", "--json")
	if r.code != 0 {
		t.Fatalf("replay --to 1: %v", r)
	}
	for _, s := range scriptSteps(t, r) {
		if s.Line != 1 {
			t.Errorf("replay --to 1 ran act %d's %q", s.Line, s.Step)
		}
	}
	if got := typed(); got != "" {
		t.Errorf("replay --to 1 typed %q", got)
	}

	r = d.dvv("replay", rec.Path, "--limb", b.limb, "--from", "2", "--to", "2", "--var", "text_2=cd", "--json")
	if r.code != 0 {
		t.Fatalf("replay --from 2 --to 2: %v", r)
	}
	for _, s := range scriptSteps(t, r) {
		if s.Line != 2 {
			t.Errorf("replay --from 2 --to 2 ran act %d's %q", s.Line, s.Step)
		}
	}
	testbed.Eventually(t, 10*time.Second, "act 2's text in the fresh xterm", func() bool { return typed() == "cd" })

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--var", "text_2=cd"}, "replay needs --limb"},
		{[]string{"--limb", b.limb, "--speed", "slow"}, `--speed must be fast or recorded, not "slow"`},
		{[]string{"--limb", b.limb, "--threshold", "0"}, "--threshold 0: a similarity from 0 (exclusive) to 1"},
		{[]string{"--limb", b.limb, "--threshold", "1.5"}, "--threshold 1.5: a similarity from 0 (exclusive) to 1"},
		{[]string{"--limb", b.limb, "--from", "0"}, "--from 0 --to 0: acts are numbered from 1"},
		{[]string{"--limb", b.limb, "--from", "3", "--to", "2"}, "--from 3 --to 2: acts are numbered from 1, and --to is not before --from"},
		{[]string{"--limb", b.limb, "--var", "text_2"}, "text_2"},
		{[]string{"--limb", b.limb, "--from", "4"}, "--from 4: the recording has 3 acts"},
		{[]string{"--limb", b.limb, "--from", "2"}, "act 2 typed text, which a recording never holds: give it with --var text_2=TEXT"},
	} {
		r := d.dvv(append([]string{"replay", rec.Path}, c.args...)...)
		wantExit(t, r, wire.ExitUsage, "")
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("replay %q: %q, want %q", c.args, r.stderr, c.want)
		}
	}
	if got := typed(); got != "cd" {
		t.Errorf("the refused replays reached the desktop: the xterm's program got %q", got)
	}
}
