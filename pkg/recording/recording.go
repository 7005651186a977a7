// Package recording writes session recordings in formats existing players
// read: terminals as asciicast v2 (asciinema play, asciinema-player) and
// desktops as FBS 001.000, the RFB session format noVNC's player and
// rfbproxy replay. A desktop's frames come from the same RFB encoder the
// re-share serves viewers with (pkg/rfbserver), so a recording shows what a
// viewer would have seen.
//
// Recording never blocks the session it records: writers run on their own
// goroutine, a slow disk coalesces frames (and says so), and a size cap ends
// a recording cleanly. The package knows nothing of leases or fences.
package recording

import (
	"errors"
	"io"
	"sync"
)

// ErrCapReached ends a recording whose file reached its size cap.
var ErrCapReached = errors.New("recording: the size cap was reached")

// cappedWriter refuses writes past cap bytes and counts what it wrote.
type cappedWriter struct {
	mu  sync.Mutex
	w   io.Writer
	n   int64
	cap int64 // 0: none
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cap > 0 && c.n+int64(len(p)) > c.cap {
		return 0, ErrCapReached
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *cappedWriter) written() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
