package rdp

import (
	"io"
	"net"
	"sync/atomic"
	"time"
)

// Liveness. RDP has no ping, so a server that has sent nothing for
// ProbeInterval is asked to repaint a small area (Refresh Rect), which it
// answers with a bitmap update; one silent for StallAfter is stalled.
const (
	ProbeInterval = 2 * time.Second
	StallAfter    = 6 * time.Second
)

// keepAlive is the floor under the probes: TCP keepalive finds a vanished
// peer within about 30 s even when no probe can be written.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}

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

// Stalled reports whether the server has sent nothing, not even an answer
// to a probe, for StallAfter, and how long it has been silent.
func (c *Client) Stalled() (bool, time.Duration) {
	silent := time.Since(time.Unix(0, c.lastRead.Load()))
	return silent >= StallAfter, silent
}

// watch probes a silent server until the session ends.
func (c *Client) watch() {
	t := time.NewTicker(ProbeInterval / 2)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		if time.Since(time.Unix(0, c.lastRead.Load())) < ProbeInterval || c.activated.Load() == 0 ||
			!c.probing.CompareAndSwap(false, true) {
			continue
		}
		// The probe may block behind a write the server does not read;
		// the watch goes on ticking meanwhile.
		// A 64x64 area: FreeRDP's shadow server answers nothing for a
		// single pixel.
		w, h := c.cfg.Framebuffer.Size()
		w, h = min(w, 64), min(h, 64)
		if w <= 0 || h <= 0 {
			c.probing.Store(false)
			continue
		}
		go func() {
			defer c.probing.Store(false)
			c.sendIO(shareDataPDU(c.shareID.Load(), c.user, pdu2RefreshRect, refreshRectBody(w, h)))
		}()
	}
}
