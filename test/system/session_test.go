package system_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// detached runs a command the way an agent's Bash tool or CI does: with no
// DVV_SESSION and, in a session of its own (setsid), no controlling
// terminal.
func (d *daemon) detached(args ...string) result {
	d.t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(append([]string{}, d.env...), "SHELL=/bin/sh",
		"PATH="+filepath.Dir(dvvBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		d.t.Fatal(err)
	}
	return r
}

// TestLeaseFollowsTheSessionAcrossShells: each command in a fresh shell (an
// agent's Bash tool, make, CI) still acts in one session, the process that
// starts those shells (here this test), and in a terminal the terminal's
// session; another session hears who holds the lease and how to act in
// that session.
func TestLeaseFollowsTheSessionAcrossShells(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "bash", "script")
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	shot := filepath.Join(t.TempDir(), "shot.png")

	// No terminal: three commands, three shells (each runs a second
	// command, so the shell stays between this test and dvv).
	for _, script := range []string{
		"dvv control acquire " + limb + " --reason scripted && echo acquired",
		"dvv screen " + limb + " --out " + shot + " && echo read",
		"dvv click " + limb + " 300 200 --action move && echo moved",
	} {
		if r := d.detached("bash", "-c", script); r.code != 0 {
			t.Fatalf("a command in its own shell: %v", r)
		}
	}
	testbed.Eventually(t, 10*time.Second, "the pointer at 300,200", func() bool {
		px, py := x.MouseLocation(t)
		return px == 300 && py == 200
	})
	self := fmt.Sprintf("system.test[%d]", os.Getpid())
	if r := d.dvv("control", "status", limb); !strings.Contains(r.stdout, "held by "+self) {
		t.Errorf("the holder is not named after the session's process %s: %v", self, r)
	}

	// Another session: refused, told who holds it and how to act there.
	r := d.run("other", "", nil, "click", limb, "10", "10", "--action", "move", "--generation", "1")
	wantExit(t, r, wire.ExitLease, wire.LeaseNotHeld)
	key := regexp.MustCompile(`DVV_SESSION=(pid:[0-9]+:[0-9]+)`).FindStringSubmatch(r.stderr)
	if !strings.Contains(r.stderr, "held by "+self) || key == nil || !strings.Contains(r.stderr, "dvv control takeover "+limb) {
		t.Fatalf("LEASE_NOT_HELD does not name the holder and how to act in its session: %v", r)
	}
	// An agent with its own token hears who holds it and how to wait or
	// take over, but not the owner's session key: it could not join it.
	agent := tokenFor(t, d, "--role", "operator", "--label", "agent")
	r = d.as("agent", agent, "click", limb, "10", "10", "--action", "move", "--generation", "1")
	wantExit(t, r, wire.ExitLease, wire.LeaseNotHeld)
	if !strings.Contains(r.stderr, "held by "+self) || strings.Contains(r.stderr, "DVV_SESSION=pid:") || !strings.Contains(r.stderr, "--wait") {
		t.Errorf("LEASE_NOT_HELD to another token: %v", r)
	}
	// Following the hint acts in the holder's session.
	if r := d.run(key[1], "", nil, "click", limb, "310", "210", "--action", "move", "--generation", "1"); r.code != 0 {
		t.Fatalf("acting with the DVV_SESSION the hint names: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "the pointer at 310,210", func() bool {
		px, py := x.MouseLocation(t)
		return px == 310 && py == 210
	})
	if r := d.detached("sh", "-c", "dvv control release "+limb+" && echo released"); r.code != 0 {
		t.Fatal(r)
	}

	// A terminal (script gives the shell a pty): two `bash -c` typed there
	// share the terminal's session, named after its shell and pty.
	inTerminal := strings.Join([]string{
		"bash -c 'dvv control acquire " + limb + " && true'",
		"bash -c 'dvv screen " + limb + " --out " + shot + " && true'",
		"bash -c 'dvv click " + limb + " 400 300 --action move && true'",
		"bash -c 'dvv control status " + limb + " --json && true'",
	}, " && ")
	r = d.detached("script", "-qec", inTerminal, "/dev/null")
	if r.code != 0 {
		t.Fatalf("two shells in one terminal: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "the pointer at 400,300", func() bool {
		px, py := x.MouseLocation(t)
		return px == 400 && py == 300
	})
	if !regexp.MustCompile(`"holder":"[a-z]+\[[0-9]+\] on pts/[0-9]+"`).MatchString(r.stdout) {
		t.Errorf("the terminal's session is not named after its shell and pty: %v", r)
	}
	// The terminal's shell has exited: its session ends, and the lease with it.
	testbed.Eventually(t, 15*time.Second, "the lease to end with the terminal", func() bool {
		r := d.dvv("control", "status", limb)
		return r.code == 0 && !strings.Contains(r.stdout, "on pts/")
	})
}
