package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

func TestGroupOfRealVNCServers(t *testing.T) {
	var addrs []string
	var servers []*testbed.VNC
	for i := 0; i < 4; i++ {
		v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
		v.Run(t, "xsetroot", "-solid", fmt.Sprintf("#%02x3060", 40*i))
		addrs, servers = append(addrs, v.Addr), append(servers, v)
	}
	d := startDaemon(t)
	c := dial(t, d, "agent")
	dead := fmt.Sprintf("127.0.0.1:%d", testbed.FreePort(t))
	_, err := do(t, c, wire.GroupOpenArgs{Addresses: append(addrs[:2:2], dead), Protocol: "vnc", Perceive: boolp(true)})
	if client.Code(err) != wire.Unreachable || !strings.Contains(err.Error(), dead) {
		t.Fatalf("group_open with a dead address: %v", err)
	}
	if l := must(t, c, wire.LimbsArgs{}); len(l.Limbs)+len(l.Available) != 0 {
		t.Fatalf("members left open after a failed group_open: %+v", l.Limbs)
	}
	g := must(t, c, wire.GroupOpenArgs{Addresses: addrs[:3], Protocol: "vnc", Perceive: boolp(true)}).Group
	_, err = do(t, c, wire.GroupGrowArgs{GroupID: g.GroupID, Addresses: []string{dead}, Protocol: "vnc"})
	if client.Code(err) != wire.Unreachable {
		t.Fatalf("group_grow with a dead address: %v", err)
	}
	g = must(t, c, wire.GroupGrowArgs{GroupID: g.GroupID, Addresses: addrs[3:], Protocol: "vnc", Perceive: boolp(true)}).Group
	if g.Size != 4 {
		t.Fatalf("group %+v", g)
	}
	ids := map[string]bool{}
	for _, m := range g.Members {
		ids[m.LimbID] = true
		testbed.Eventually(t, 10*time.Second, "first frame", func() bool {
			return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: m.LimbID}}).Observation.Coverage == 1
		})
	}
	ev, err := client.Dial(context.Background(), d.SocketPath(), client.Options{Name: "watcher"})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	must(t, ev, wire.SubscribeArgs{Events: []string{"op.start", "op.end"}})
	r := must(t, c, wire.GroupRunArgs{GroupID: g.GroupID, Action: "screen", Arguments: json.RawMessage(`{"scale":0.5}`)})
	for _, m := range r.Members {
		if mr := memberAnswer(t, m); mr.Screen == nil || mr.Screen.Width != 320 {
			t.Fatalf("member %d: %+v", m.Index, mr)
		}
	}
	var lastStart, firstEnd uint64
	for seen := 0; seen < 8; {
		select {
		case e := <-ev.Events():
			if !ids[e.LimbID] {
				continue
			}
			seen++
			if e.Kind == "op.start" {
				lastStart = max(lastStart, e.Seq)
			} else if firstEnd == 0 || e.Seq < firstEnd {
				firstEnd = e.Seq
			}
		case <-time.After(10 * time.Second):
			t.Fatal("missing op events")
		}
	}
	if lastStart > firstEnd {
		t.Fatalf("member finished (event %d) before the last started (event %d)", firstEnd, lastStart)
	}
	_, err = do(t, c, wire.GroupShrinkArgs{GroupID: g.GroupID, N: 5})
	if client.Code(err) != wire.BadRequest {
		t.Fatalf("shrink beyond size: %v", err)
	}
	servers[0].Server.Kill() // one member dies; group_run reports it and serves the others
	testbed.Eventually(t, 10*time.Second, "member 0 down", func() bool {
		return must(t, c, wire.StatusArgs{Target: wire.Target{GroupID: g.GroupID, Member: intp(0)}}).Observation.State != "connected"
	})
	r = must(t, c, wire.GroupRunArgs{GroupID: g.GroupID, Action: "status"})
	if m0, m1 := memberAnswer(t, r.Members[0]), memberAnswer(t, r.Members[1]); m0.Observation.State == "connected" || m1.Observation.State != "connected" {
		t.Fatalf("group_run status: %+v / %+v", m0.Observation, m1.Observation)
	}
	must(t, c, wire.GroupCloseArgs{GroupID: g.GroupID})
}

// TestGroupCloseKeepsSharedLimbs: closing a group leaves open the limbs
// another group (or another client) still uses, and says which and why.
func TestGroupCloseKeepsSharedLimbs(t *testing.T) {
	shared := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	own := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	onlyB := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	hs, err := hosts.Open(filepath.Join(t.TempDir(), "hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs}, io.Discard)
	c := dial(t, d, "agent")
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "box", Protocol: "vnc", Address: "127.0.0.1", Port: shared.Port}})
	a := must(t, c, wire.GroupOpenArgs{HostIDs: []string{"box"}, Addresses: []string{own.Addr}, Protocol: "vnc"}).Group
	b := must(t, c, wire.GroupOpenArgs{HostIDs: []string{"box"}, Addresses: []string{onlyB.Addr}, Protocol: "vnc"}).Group
	sharedID, onlyBID := b.Members[0].LimbID, b.Members[1].LimbID
	if a.Members[0].LimbID != sharedID {
		t.Fatalf("the saved host is not one limb: %+v %+v", a, b)
	}
	closed := must(t, c, wire.GroupCloseArgs{GroupID: b.GroupID})
	if closed.Group == nil || closed.Group.Members[0].Kept == "" || !strings.Contains(closed.Group.Members[0].Kept, a.GroupID) ||
		closed.Group.Members[1].Kept != "" || closed.Group.Members[1].State != wire.StateClosed {
		t.Fatalf("group_close answer %+v", closed.Group)
	}
	if st := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: sharedID}}).Observation.State; st != wire.StateConnected {
		t.Fatalf("group A's member is %s after closing group B", st)
	}
	if _, err := do(t, c, wire.StatusArgs{Target: wire.Target{LimbID: onlyBID}}); client.Code(err) != wire.LimbGone {
		t.Fatalf("group B's own member: %v", err)
	}
	// A limb another client attached survives too.
	other := dial(t, d, "person")
	must(t, other, wire.StatusArgs{Target: wire.Target{LimbID: a.Members[1].LimbID}})
	closed = must(t, c, wire.GroupCloseArgs{GroupID: a.GroupID})
	if closed.Group.Members[0].State != wire.StateClosed || !strings.Contains(closed.Group.Members[1].Kept, "person") {
		t.Fatalf("group_close answer %+v", closed.Group)
	}
	if st := must(t, other, wire.StatusArgs{Target: wire.Target{LimbID: a.Members[1].LimbID}}).Observation.State; st != wire.StateConnected {
		t.Fatalf("the other client's limb is %s", st)
	}
}
