package e2e

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestGroupGrowWithSSHHosts: a group of saved SSH hosts grows by a host
// that can connect, and by a host whose limb's shell had exited: that
// member is reopened (a new shell), not waited on until a timeout. Which
// sshd answered is read from the server side (SSH_CONNECTION names the
// port the server accepted on).
func TestGroupGrowWithSSHHosts(t *testing.T) {
	build, test := testbed.StartSSHD(t), testbed.StartSSHD(t)
	// One client home trusts both servers, and both accept its key.
	t.Setenv("HOME", build.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	kh, err := os.OpenFile(filepath.Join(build.Home, ".ssh", "known_hosts"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	kh.WriteString(test.KnownHostsLine(test.HostPub))
	kh.Close()
	pub, err := os.ReadFile(build.ClientKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(test.Dir, "authorized_keys"), pub, 0o644); err != nil {
		t.Fatal(err)
	}

	hs, err := hosts.Open(filepath.Join(t.TempDir(), "hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs}, io.Discard)
	c := dial(t, d, "agent")
	for name, s := range map[string]*testbed.SSHD{"build": build, "test": test} {
		must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: name, Protocol: "ssh", Address: s.Host, Port: s.Port, User: s.User}})
	}
	// serverPort runs a command on a group member and says which sshd
	// accepted its connection.
	serverPort := func(gid string, member int) int {
		t.Helper()
		r := must(t, c, wire.GroupRunArgs{GroupID: gid, Action: "run",
			Arguments: json.RawMessage(`{"command":"echo $SSH_CONNECTION","timeoutMs":15000}`)})
		m := memberAnswer(t, r.Members[member])
		if m.Run == nil {
			t.Fatalf("member %d did not run: %+v", member, m)
		}
		f := strings.Fields(m.Run.Stdout)
		if len(f) != 4 {
			t.Fatalf("member %d: SSH_CONNECTION %q", member, m.Run.Stdout)
		}
		port, _ := strconv.Atoi(f[3])
		return port
	}

	g := must(t, c, wire.GroupOpenArgs{HostIDs: []string{"build"}}).Group
	g = must(t, c, wire.GroupGrowArgs{GroupID: g.GroupID, HostIDs: []string{"test"}}).Group
	if g.Size != 2 || g.Members[1].Host != "test" || g.Members[1].State != wire.StateConnected {
		t.Fatalf("grow by a host that connects: %+v", g)
	}
	if p0, p1 := serverPort(g.GroupID, 0), serverPort(g.GroupID, 1); p0 != build.Port || p1 != test.Port {
		t.Fatalf("members reached ports %d and %d, want %d and %d", p0, p1, build.Port, test.Port)
	}

	// The second member's shell ends: the limb is exited.
	grown := g.Members[1].LimbID
	target := wire.Target{LimbID: grown}
	must(t, c, wire.ControlArgs{Target: target, Action: "acquire"})
	must(t, c, wire.TermSendArgs{Target: target, Text: strp("exit 7\n")})
	if w := must(t, c, wire.WaitArgs{Target: target, Until: "exit", TimeoutMs: intp(15000)}); !w.Wait.Settled {
		t.Fatalf("wait exit: %+v", w.Wait)
	}
	testbed.Eventually(t, 10*time.Second, "state exited", func() bool {
		return must(t, c, wire.StatusArgs{Target: target}).Observation.State == wire.StateExited
	})

	// Another group grows by the same saved host: its limb is reopened.
	g2 := must(t, c, wire.GroupOpenArgs{HostIDs: []string{"build"}}).Group
	g2 = must(t, c, wire.GroupGrowArgs{GroupID: g2.GroupID, HostIDs: []string{"test"}}).Group
	if g2.Size != 2 || g2.Members[1].LimbID != grown || g2.Members[1].State != wire.StateConnected {
		t.Fatalf("grow by the exited host: %+v", g2)
	}
	if p := serverPort(g2.GroupID, 1); p != test.Port {
		t.Fatalf("the reopened member reached port %d, want %d", p, test.Port)
	}
	// A new shell: it echoes what it is sent.
	must(t, c, wire.TermSendArgs{Target: target, Text: strp("echo REOPENED-$((6*7))\n")})
	if w := must(t, c, wire.WaitArgs{Target: target, Until: "text", Text: strp("REOPENED-42"), TimeoutMs: intp(15000)}); !w.Wait.Settled {
		t.Fatalf("the reopened shell did not answer: %+v", w.Wait)
	}
}
