package rfb

import (
	"io"
	"sync/atomic"
	"time"
)

// Liveness defaults. A server that has sent nothing for ProbeInterval is
// asked for an answer (a Fence where the server speaks it, else a one-pixel
// non-incremental update request, which every server must answer); one that
// stays silent for StallAfter is stalled: its pixels may be stale.
const (
	DefaultProbeInterval = 2 * time.Second
	DefaultStallAfter    = 6 * time.Second
	// DefaultWriteTimeout bounds one write. A write that fails part-way
	// leaves the stream out of step, so the connection is dropped.
	DefaultWriteTimeout = 10 * time.Second
)

// aliveReader notes the time of every read that brought bytes, so a slow
// but moving transfer never counts as a stall.
type aliveReader struct {
	r    io.Reader
	last *atomic.Int64
}

func (a *aliveReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 {
		a.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// Stalled reports whether the server has answered nothing, not even a
// probe, for the stall time, and how long it has been silent.
func (c *Client) Stalled() (bool, time.Duration) {
	silent := time.Since(time.Unix(0, c.lastRead.Load()))
	return silent >= c.stallAfter, silent
}

// watch probes a silent server until the client closes.
func (c *Client) watch(done <-chan struct{}) {
	t := time.NewTicker(c.probeInterval / 2)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		if time.Since(time.Unix(0, c.lastRead.Load())) < c.probeInterval || !c.probing.CompareAndSwap(false, true) {
			continue
		}
		// The probe may block behind a write the server does not read;
		// the watch goes on ticking meanwhile.
		go func() {
			defer c.probing.Store(false)
			c.probe()
		}()
	}
}

func (c *Client) probe() error {
	c.mu.Lock()
	fence := c.caps.Fence
	c.mu.Unlock()
	if fence {
		// A fence request with no flags and an empty payload: the server
		// answers it as soon as it has processed what came before.
		return c.send([]byte{cmsgClientFence, 0, 0, 0, 0x80, 0, 0, 0, 0})
	}
	return c.send(updateRequest(false, 0, 0, 1, 1))
}
