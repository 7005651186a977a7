package e2e

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/discovery"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestDiscoveredMachinesOpenByID publishes a real Xvnc over mDNS, finds it
// under hosts --discovered, and opens it by its discovered id.
func TestDiscoveredMachinesOpenByID(t *testing.T) {
	a := testbed.StartAvahi(t)
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	a.Publish(t, "lab-desk", "_rfb._tcp", v.Port)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := discovery.Start(ctx)
	defer b.Close()
	d := startDaemonWith(t, daemon.Services{Discovery: b}, io.Discard)
	c := dial(t, d, "agent")
	var found *wire.Host
	testbed.Eventually(t, 20*time.Second, "lab-desk under discovered", func() bool {
		r := must(t, c, wire.HostsArgs{Discovered: true})
		for _, h := range r.Discovered {
			if h.Name == "lab-desk" && h.Port == v.Port {
				found = &h
				return true
			}
		}
		return false
	})
	if found.Protocol != "vnc" || found.Source != "mdns" || found.HasCredential {
		t.Fatalf("discovered %+v", found)
	}
	r := must(t, c, wire.OpenArgs{HostID: found.ID, Perceive: boolp(true)})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatalf("open by discovered id: %+v", w.Observation)
	}
}
