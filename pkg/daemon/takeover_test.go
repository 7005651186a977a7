package daemon

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// takenOver is a session another connection took over as soon as it began.
type takenOver struct{ fakeDesktop }

func (s *takenOver) Err() error {
	return &limb.TakenOverError{Err: wire.Errorf(wire.NotConnected, "another connection took over the session")}
}

// A session another connection took over is reported, not fought: the
// limb stays failed and does not dial again until reconnect asks.
func TestTakenOverIsNotFought(t *testing.T) {
	var dials atomic.Int64
	dialer := func(ctx context.Context, tg limb.Target, buf *fb.Buffer) (limb.Desktop, error) {
		dials.Add(1)
		buf.Resize(64, 64)
		s := &takenOver{fakeDesktop{buf: buf, done: make(chan struct{})}}
		s.drop()
		return s, nil
	}
	d := startDaemon(t, Config{Desktop: map[string]limb.DesktopDialer{wire.ProtoRDP: dialer}})
	c := dialClient(t, d, client.Options{Name: "agent"})
	r := mustDo(t, c, wire.OpenArgs{Address: "single-session", Protocol: "rdp"})
	_, err := do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(5000)})
	if client.Code(err) != wire.NotConnected {
		t.Fatalf("wait on a taken-over limb: %v", err)
	}
	o := mustDo(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation
	if o.State != wire.StateFailed || o.LastError == nil {
		t.Fatalf("observation %+v", o)
	}
	// Failed is where the run loop waits for a reconnect: no dial happens
	// until one asks. One wait later nothing has moved.
	n := dials.Load()
	do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(1000)})
	if dials.Load() != n || n != 1 {
		t.Fatalf("%d dials after the takeover", dials.Load())
	}
	do(t, c, wire.ReconnectArgs{Target: wire.Target{LimbID: r.LimbID}, TimeoutMs: intp(2000)})
	if dials.Load() != 2 {
		t.Fatalf("reconnect dialled %d times in all, want 2", dials.Load())
	}
}
