package rfb

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"
)

// A session the server drops right after the handshake leaves nothing
// behind: no reader, no liveness watch, no probe, a few hundred times over.
func TestDroppedSessionsLeaveNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 200; i++ {
		s := startFake(t, 64, 64, nil, func(c net.Conn) {})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := Dial(ctx, s.addr(), &Config{ProbeInterval: time.Millisecond})
		cancel()
		if err != nil {
			continue // the drop may beat the end of the handshake
		}
		c.Run()
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+5 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before 200 dropped sessions, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
