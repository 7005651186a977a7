package system_test

import (
	"net"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestOpenWait: `dvv open --wait` returns the limb id once a real Xvnc
// limb is connected, and fails with the limb's coded error where nothing
// listens (instead of exiting 0 with the limb still connecting).
func TestOpenWait(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	x := testbed.StartXvnc(t, testbed.XvncOptions{})
	r := d.must("open", x.Addr, "--protocol", "vnc", "--wait")
	limb := strings.TrimSpace(r.stdout)
	if o := status(t, d, "shell-a", limb); o.State != wire.StateConnected {
		t.Fatalf("open --wait returned before the limb connected: %s (%v)", o.State, r)
	}
	if !strings.Contains(r.stderr, "connected vnc") {
		t.Errorf("open --wait stderr: %q", r.stderr)
	}

	// A port where nothing listens: bind one, close it, and open to it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	r = d.dvv("open", dead, "--protocol", "vnc", "--wait")
	wantExit(t, r, wire.ExitConnection, wire.Unreachable)
	if r.stdout != "" || !strings.Contains(r.stderr, "was closed") {
		t.Errorf("a failed --wait: %v", r)
	}
	resp := response(t, d.dvv("open", dead, "--protocol", "vnc", "--wait", "--json"))
	if resp.Code != wire.Unreachable {
		t.Errorf("--json of a failed --wait: %+v", resp)
	}
	// With --wait=false open returns at once.
	if r := d.must("open", dead, "--protocol", "vnc", "--wait=false"); strings.TrimSpace(r.stdout) == "" {
		t.Errorf("open without --wait: %v", r)
	}
}
