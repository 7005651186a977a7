package rfbserver

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Sessions' buffers are freed when they end, but Go hands freed memory
// back to the system only slowly; after a crowd of viewers on a big
// desktop that would leave the process tens of MiB larger for minutes.
// When the last session of the process ends (and none starts for
// releaseAfter), the memory is handed back at once.
var (
	liveSessions   atomic.Int64
	releaseMu      sync.Mutex
	releasePending bool
)

const releaseAfter = 2 * time.Second

func sessionStarted() { liveSessions.Add(1) }

func sessionEnded() {
	if liveSessions.Add(-1) != 0 {
		return
	}
	releaseMu.Lock()
	defer releaseMu.Unlock()
	if releasePending {
		return
	}
	releasePending = true
	time.AfterFunc(releaseAfter, func() {
		releaseMu.Lock()
		releasePending = false
		releaseMu.Unlock()
		if liveSessions.Load() == 0 {
			debug.FreeOSMemory()
		}
	})
}

// held is the bytes a session's encoder holds between updates: the
// hashes of what the viewer has and the buffers of one rectangle.
func (e *encoder) held() int {
	n := 0
	if e.colours != nil {
		n = int(unsafe.Sizeof(*e.colours)) + 4*cap(e.colours.list)
	}
	return n + 8*(cap(e.sums)+cap(e.newRows)+cap(e.oldRows)) + cap(e.band) + cap(e.out) + cap(e.raw) + e.zbuf.Cap() + e.jbuf.Cap() + e.tightZ.buf.Cap()
}
