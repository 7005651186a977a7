package system_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestResumeGivesTheLeaseBack: `dvv pause --all` stops an agent that holds
// a lease, here one running each command in a fresh shell as a Bash tool
// does; the pause keeps the lease with it, the refusal says so, and after
// `dvv resume` the agent's next act goes through with no acquire in
// between and lands on the X server.
func TestResumeGivesTheLeaseBack(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	shot := filepath.Join(t.TempDir(), "shot.png")
	agent := func(args ...string) result {
		return d.detached("bash", "-c", "dvv "+strings.Join(args, " ")+" && true")
	}

	if r := agent("control", "acquire", limb); r.code != 0 {
		t.Fatal(r)
	}
	if r := agent("screen", limb, "--out", shot); r.code != 0 {
		t.Fatal(r)
	}
	if r := agent("click", limb, "100", "100", "--action", "move"); r.code != 0 {
		t.Fatal(r)
	}
	if r := d.run("person", "", nil, "pause", "--all"); r.code != 0 {
		t.Fatal(r)
	}
	r := agent("click", limb, "200", "150", "--action", "move")
	wantExit(t, r, wire.ExitLease, wire.LeaseRevoked)
	if !strings.Contains(r.stderr, "dvv resume") || !strings.Contains(r.stderr, "lease is kept") {
		t.Errorf("the paused act's refusal does not say the lease is kept until resume: %v", r)
	}
	if px, py := x.MouseLocation(t); px == 200 && py == 150 {
		t.Fatal("an act went through while paused")
	}
	if r := d.run("person", "", nil, "resume"); r.code != 0 {
		t.Fatal(r)
	}
	if r := agent("control", "status", limb); !strings.Contains(r.stdout, "held by you") {
		t.Errorf("after resume the agent does not hold its lease again: %v", r)
	}
	if r := agent("click", limb, "250", "160", "--action", "move"); r.code != 0 {
		t.Fatalf("the agent's first act after resume: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "the pointer at 250,160", func() bool {
		px, py := x.MouseLocation(t)
		return px == 250 && py == 160
	})
}
