package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestAcquireWaitThatExpiresIsTimeout: an acquire whose waitMs runs out
// answers TIMEOUT, the code the tool reference names; waitMs 0 still
// answers LEASE_NOT_HELD at once.
func TestAcquireWaitThatExpiresIsTimeout(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{})
	d := startDaemon(t)
	a, b := dial(t, d, "a"), dial(t, d, "b")
	id := openVNC(t, a, "127.0.0.1", v.Port)
	must(t, a, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	_, err := do(t, b, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire", WaitMs: intp(200)})
	if client.Code(err) != wire.Timeout || !strings.Contains(err.Error(), "a still holds it") {
		t.Fatalf("acquire whose wait expired: %v", err)
	}
	_, err = do(t, b, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire", WaitMs: intp(0)})
	if client.Code(err) != wire.LeaseNotHeld {
		t.Fatalf("acquire without waiting: %v", err)
	}
}

// rawLine sends one request line on a fresh socket connection and returns
// the answer.
func rawLine(t *testing.T, socket, line string) *wiretest.Response {
	t.Helper()
	nc, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := nc.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	ans, err := bufio.NewReader(nc).ReadBytes('\n')
	if err != nil {
		t.Fatalf("%s: no answer: %v", line, err)
	}
	var r wiretest.Response
	if err := json.Unmarshal(ans, &r); err != nil {
		t.Fatalf("answer %q: %v", ans, err)
	}
	return &r
}

// TestFieldsThatDoNotApplyAreRefused: nonsense arguments are BAD_REQUEST
// naming the field, and nothing reaches the server (the X pointer stays
// where it was; the X clipboard keeps its text).
func TestFieldsThatDoNotApplyAreRefused(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	v.Run(t, "xdotool", "mousemove", "10", "10")
	cases := []struct{ line, field string }{
		{`{"op":"clipboard","limbId":"` + id + `","action":"get","text":"x"}`, "text"},
		{`{"op":"control","limbId":"` + id + `","action":"release","waitMs":5}`, "waitMs"},
		{`{"op":"wait","limbId":"` + id + `","until":"idle","quietMs":-5,"timeoutMs":100}`, "quietMs"},
		{`{"op":"click","limbId":"` + id + `","action":"move","x":1.5,"y":40,"generation":1}`, "x"},
		{`{"op":"click","limbId":"` + id + `","action":"move","x":100,"y":40,"generation":1,"direction":"up"}`, "direction"},
		{`{"op":"click","limbId":"` + id + `","action":"scroll","x":100,"y":40,"generation":1,"direction":"up","clicks":0}`, "clicks"},
		{`{"op":"status","limbId":"` + id + `","path":"/etc"}`, "path"},
		{`{"op":"files","limbId":"` + id + `","action":"home","path":"/etc"}`, "path"},
		{`{"op":"open","address":"127.0.0.1","protocol":"vnc","port":70000}`, "port"},
	}
	for _, tc := range cases {
		r := rawLine(t, d.SocketPath(), tc.line)
		if r.Code != wire.BadRequest || !strings.Contains(r.Message, `"`+tc.field+`"`) && !strings.Contains(r.Message, tc.field+" ") {
			t.Errorf("%s: want BAD_REQUEST naming %s, got %s: %s", tc.line, tc.field, r.Code, r.Message)
		}
	}
	if x, y := v.MouseLocation(t); x != 10 || y != 10 {
		t.Fatalf("a refused move reached the server: pointer at %d,%d", x, y)
	}
	// The same requests without the offending field are served.
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "release"})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(100), Y: intp(40), Generation: u64p(1)})
	deadline := time.Now().Add(10 * time.Second)
	for x, y := v.MouseLocation(t); x != 100 || y != 40; x, y = v.MouseLocation(t) {
		if time.Now().After(deadline) {
			t.Fatalf("the valid move never arrived: pointer at %d,%d", x, y)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCallerThatGivesUpStopsTheWork: a client whose deadline passes asks
// dvvd to withdraw the request (op cancel); the wait it started ends long
// before its own 25 s deadline.
func TestCallerThatGivesUpStopsTheWork(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// The screen must stay still as long as the deadline: the wait runs 25 s.
	_, err := c.Wait(ctx, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: intp(25000), TimeoutMs: intp(25000)})
	if client.Code(err) != wire.Timeout {
		t.Fatalf("a wait past the client's deadline: %v", err)
	}
	testbed.Eventually(t, 15*time.Second, "the abandoned wait to end in dvvd", func() bool {
		for _, h := range must(t, c, wire.HistoryArgs{Target: wire.Target{LimbID: id}}).History {
			if h.Op == "wait" && strings.Contains(h.Detail, "screen-stable") {
				return true
			}
		}
		return false
	})
	// A cancel for nothing in flight is an ordinary answer.
	r := rawLine(t, d.SocketPath(), `{"op":"cancel","cancels":"nope"}`)
	if r.Result != "cancel" || !strings.Contains(r.Dispatched, "no request") {
		t.Fatalf("cancel of nothing: %+v", r)
	}
}

// TestHostsDiscoveredListsSavedHostsToo: hosts {discovered: true} lists the
// saved machines beside what discovery saw, as the tool reference says.
func TestHostsDiscoveredListsSavedHostsToo(t *testing.T) {
	hs, err := hosts.Open(filepath.Join(t.TempDir(), "hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs}, io.Discard)
	c := dial(t, d, "agent")
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "lab", Protocol: "vnc", Address: "127.0.0.1", Port: 5999}})
	r := must(t, c, wire.HostsArgs{Discovered: true})
	if len(r.Hosts) != 1 || r.Hosts[0].Name != "lab" || r.Discovered == nil {
		t.Fatalf("hosts with discovered: saved %+v, discovered %+v (%s)", r.Hosts, r.Discovered, r.DiscoveryNote)
	}
}

// TestTypedClient drives one agent loop with pkg/client's typed calls
// against a real Xvnc and checks the pointer on the X server.
func TestTypedClient(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{})
	d := startDaemon(t)
	c := dial(t, d, "typed")
	ctx := context.Background()
	perceive, port := true, v.Port
	opened, err := c.Open(ctx, wire.OpenArgs{Protocol: wire.ProtoVNC, Address: "127.0.0.1", Port: &port, Perceive: &perceive})
	if err != nil {
		t.Fatal(err)
	}
	id := opened.LimbID
	on := wire.Target{LimbID: id}
	timeout := 20000
	if r, err := c.Wait(ctx, wire.WaitArgs{Target: on, Until: "connected", TimeoutMs: &timeout}); err != nil || !r.Wait.Settled {
		t.Fatalf("wait connected: %+v %v", r, err)
	}
	var scr *wire.Screen
	half := 0.5
	testbed.Eventually(t, 20*time.Second, "a complete screen", func() bool {
		r, err := c.Screen(ctx, wire.ScreenArgs{Target: on, Scale: &half})
		if err == nil {
			scr = r.Screen
		}
		return err == nil && scr.Coverage >= 1
	})
	if scr.ImageSpace.Scale != 0.5 || scr.Width != 400 {
		t.Fatalf("screen: %+v", scr.ImageSpace)
	}
	if r, err := c.Control(ctx, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire", Reason: "typed test"}); err != nil || r.Lease == nil || !r.Lease.Held {
		t.Fatalf("acquire: %+v %v", r, err)
	}
	x, y := 77, 55
	if _, err := c.Click(ctx, wire.ClickArgs{Target: on, Action: "move", X: &x, Y: &y, Generation: &scr.Generation}); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 10*time.Second, "the pointer at 77,55", func() bool {
		x, y := v.MouseLocation(t)
		return x == 77 && y == 55
	})
	if _, err := c.TermRead(ctx, wire.TermReadArgs{Target: on}); client.Code(err) != wire.WrongProtocol {
		t.Fatalf("term_read on a desktop: %v", err)
	}
	if _, err := c.Control(ctx, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "release"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CloseLimb(ctx, wire.CloseArgs{LimbID: id}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Status(ctx, wire.StatusArgs{Target: on}); client.Code(err) != wire.LimbGone {
		t.Fatalf("status of a closed limb: %v", err)
	}
}
