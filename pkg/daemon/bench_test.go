package daemon

import (
	"context"
	"testing"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// BenchmarkStatusRoundTrip is one status request over the socket, answered
// with the full observation.
func BenchmarkStatusRoundTrip(b *testing.B) {
	d := startDaemon(&testing.T{}, Config{Desktop: fakeDialers()})
	defer d.Shutdown()
	c, err := client.Dial(b.Context(), d.SocketPath(), client.Options{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r, _ := c.Open(b.Context(), wire.OpenArgs{Address: "fake", Protocol: "vnc", Perceive: boolp(true)})
	to := 5000
	c.Wait(b.Context(), wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: &to})
	req := wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Status(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDispatch is dvvd's own work for an inline limb op, without the
// socket: spec checks, policy, selector, kind, the typed handler and the
// limb's history and events.
func BenchmarkDispatch(b *testing.B) {
	d := startDaemon(&testing.T{}, Config{Desktop: fakeDialers()})
	defer d.Shutdown()
	c, err := client.Dial(b.Context(), d.SocketPath(), client.Options{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r, _ := c.Open(b.Context(), wire.OpenArgs{Address: "fake", Protocol: "vnc", Perceive: boolp(true)})
	to := 5000
	c.Wait(b.Context(), wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: &to})
	att, err := d.attach(nil, asRequest(b, wire.HelloArgs{Envelope: wire.Envelope{Name: "bench"}}))
	if err != nil {
		b.Fatal(err)
	}
	for _, op := range []string{wire.OpStatus, wire.OpSignals} {
		b.Run(op, func(b *testing.B) {
			req := asRequest(b, raw(op, "limbId", r.LimbID))
			b.ReportAllocs()
			for b.Loop() {
				if r := d.dispatch(context.Background(), nil, att, req); r.ans == nil || r.ans.Op() != op {
					b.Fatalf("%+v", r)
				}
			}
		})
	}
}
