package e2e

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// droppingRFB completes every RFB handshake (security None, 64x64) and
// hangs up at once; it counts the sessions it served.
func droppingRFB(t *testing.T, sessions *atomic.Int64) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("RFB 003.008\n"))
				buf := make([]byte, 12)
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				c.Write([]byte{1, 1})
				if _, err := io.ReadFull(c, buf[:1]); err != nil {
					return
				}
				c.Write([]byte{0, 0, 0, 0})
				if _, err := io.ReadFull(c, buf[:1]); err != nil {
					return
				}
				c.Write([]byte{0, 64, 0, 64, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0, 0, 0, 0, 4, 'd', 'r', 'o', 'p'})
				sessions.Add(1)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// A server that accepts a session and drops it at once is not hammered:
// the limb backs off after every drop, not only after failed dials.
func TestBackoffAfterEveryDrop(t *testing.T) {
	var sessions atomic.Int64
	port := droppingRFB(t, &sessions)
	d := startDaemon(t)
	c := dial(t, d, "agent")
	r := must(t, c, &wire.Request{Op: "open", Address: "127.0.0.1", Port: &port, Protocol: "vnc"})
	testbed.Eventually(t, 10*time.Second, "the first session", func() bool { return sessions.Load() > 0 })
	// Without back-off a drop is redialled at once: hundreds of sessions a
	// second. With it (0.25 s doubling), a few seconds hold a handful.
	start, n0 := time.Now(), sessions.Load()
	for time.Since(start) < 4*time.Second {
		do(t, c, &wire.Request{Op: "wait", LimbID: r.LimbID, Until: "connected", TimeoutMs: intp(200)})
	}
	if n := sessions.Load() - n0; n > 12 {
		t.Fatalf("%d sessions in 4 s against a server that drops each one", n)
	}
	o := must(t, c, &wire.Request{Op: "status", LimbID: r.LimbID}).Observation
	if o.State == wire.StateConnected && o.LastError == nil {
		t.Fatalf("observation does not tell the drops: %+v", o)
	}
}
