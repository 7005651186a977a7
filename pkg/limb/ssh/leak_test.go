package ssh

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestDroppedSessionsReleaseEverything dials a server that opens the
// shell, prints a prompt and drops the connection, a few hundred times,
// never calling Close (the daemon's run loop only forgets a dropped
// session). Goroutines and heap must come back to where they were.
//
// Not parallel: the heap is measured, and the package's parallel tests
// (terminals each holding a ring and an emulator) would be in it; they wait
// until this one has run.
func TestDroppedSessionsReleaseEverything(t *testing.T) {
	h := startHostileSSH(t, func(nc net.Conn, ch ssh.Channel, reqs <-chan *ssh.Request) {
		if acceptShell(reqs) {
			ch.Write([]byte("$ "))
		}
		nc.Close()
	}, nil)
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		term, err := h.opts().DialTerminal(ctx, h.target())
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		select {
		case <-term.Done():
		case <-ctx.Done():
			t.Fatal("the dropped connection was never noticed")
		}
	}
	drop() // warm up: lazily started runtime goroutines, pools
	settle := func(want int) int {
		n := runtime.NumGoroutine()
		for deadline := time.Now().Add(15 * time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
			runtime.Gosched()
			time.Sleep(20 * time.Millisecond) // polling for goroutines to end, not synchronising
		}
		return n
	}
	base := runtime.NumGoroutine()
	heap0 := heapInUse()
	const drops = 200
	for i := 0; i < drops; i++ {
		drop()
	}
	// Allow a few goroutines (runtime, test framework), not one per
	// dropped session.
	if n := settle(base + 10); n > base+10 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after %d dropped sessions, %d before:\n%s", n, drops, base, buf[:runtime.Stack(buf, true)])
	}
	grown := int64(heapInUse()) - int64(heap0)
	t.Logf("heap grew by %d KiB over %d dropped sessions", grown>>10, drops)
	if grown > 32<<20 {
		t.Fatalf("the heap grew by %d MiB over %d dropped sessions", grown>>20, drops)
	}
}
