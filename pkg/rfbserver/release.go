package rfbserver

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
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
