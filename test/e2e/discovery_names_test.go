package e2e

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/discovery"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestDiscoveredNameIsPrintable: a machine on the network that publishes
// its VNC service under a name holding an escape sequence and a newline
// is listed with those characters as '?', so no client shows them raw;
// it still opens by its id.
func TestDiscoveredNameIsPrintable(t *testing.T) {
	a := testbed.StartAvahi(t)
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	a.Publish(t, "evil\x1b]0;OWNED\a\ndesk", "_rfb._tcp", v.Port)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := discovery.Start(ctx)
	defer b.Close()
	d := startDaemonWith(t, daemon.Services{Discovery: b}, io.Discard)
	c := dial(t, d, "agent")
	var found *wire.Host
	testbed.Eventually(t, 20*time.Second, "the published service under discovered", func() bool {
		r := must(t, c, wire.HostsArgs{Discovered: true})
		for _, h := range r.Discovered {
			if strings.HasPrefix(h.Name, "evil") && h.Port == v.Port {
				found = &h
				return true
			}
		}
		return false
	})
	if found.Name != "evil?]0;OWNED??desk" {
		t.Errorf("discovered name %q", found.Name)
	}
	r := must(t, c, wire.OpenArgs{HostID: found.ID, Perceive: boolp(true)})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatalf("open by discovered id: %+v", w.Observation)
	}
}
