package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestReconnectStartsLeaseAfresh: after reconnect nobody holds the lease and
// the typing fence is armed again; the event stream reports each lease
// change once, including the release that closing a limb implies.
func TestReconnectStartsLeaseAfresh(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	ev, err := client.Dial(context.Background(), d.SocketPath(), client.Options{Name: "watcher"})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	must(t, ev, wire.SubscribeArgs{Events: []string{"lease", "limb.state"}})

	id := openVNC(t, c, "127.0.0.1", v.Port)
	must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.25)})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"}) // already held: no change
	must(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "shift"})

	must(t, c, wire.ReconnectArgs{Target: wire.Target{LimbID: id}, TimeoutMs: intp(20000)})
	o := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation
	if o.Lease.Holder != "" || o.Lease.Held {
		t.Fatalf("lease after reconnect: %+v", o.Lease)
	}
	_, err = do(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "shift"})
	if client.Code(err) != wire.LeaseNotHeld {
		t.Fatalf("key after reconnect without acquiring: %v", err)
	}
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	testbed.Eventually(t, 10*time.Second, "fence armed by the new session", func() bool {
		_, err := do(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "shift"})
		return client.Code(err) == wire.ScreenChanged
	})
	must(t, c, wire.CloseArgs{LimbID: id})

	var leases []string
	deadline := time.After(10 * time.Second)
	for closed := false; !closed; {
		select {
		case e := <-ev.Events():
			if e.LimbID != id {
				continue
			}
			switch {
			case e.Kind == "lease":
				leases = append(leases, e.Detail)
			case e.Detail == wire.StateClosed:
				closed = true
			}
		case <-deadline:
			t.Fatalf("no closed event; lease events so far %q", leases)
		}
	}
	want := []string{"acquired by agent", "released", "acquired by agent", "released"}
	if len(leases) != len(want) {
		t.Fatalf("lease events %q, want %q", leases, want)
	}
	for i := range want {
		if leases[i] != want[i] {
			t.Fatalf("lease events %q, want %q", leases, want)
		}
	}
}
