package e2e

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// A server that accepts a session and drops it at once is not hammered:
// the limb backs off after every drop, not only after failed dials.
func TestBackoffAfterEveryDrop(t *testing.T) {
	var sessions atomic.Int64
	port := droppingRFB(t, &sessions)
	d := startDaemon(t)
	c := dial(t, d, "agent")
	r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "vnc"})
	testbed.Eventually(t, 10*time.Second, "the first session", func() bool { return sessions.Load() > 0 })
	// Without back-off a drop is redialled at once: hundreds of sessions a
	// second. With it (0.25 s doubling), a few seconds hold a handful.
	start, n0 := time.Now(), sessions.Load()
	for time.Since(start) < 4*time.Second {
		do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(200)})
	}
	if n := sessions.Load() - n0; n > 12 {
		t.Fatalf("%d sessions in 4 s against a server that drops each one", n)
	}
	o := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation
	if o.State == wire.StateConnected && o.LastError == nil {
		t.Fatalf("observation does not tell the drops: %+v", o)
	}
}
