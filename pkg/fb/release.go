package fb

import (
	"runtime/debug"
	"sync"
	"time"
)

// Large pixel arrays dropped on a resize would otherwise wait for the next
// collection and then for the runtime to hand their pages back, which can
// take minutes: a server cycling through huge desktop sizes leaves the
// process holding hundreds of MB. Release returns them to the OS at once,
// at most once per releaseEvery (later drops in that time are returned
// when it ends), so a server resizing in a loop cannot keep the process
// collecting.
const (
	releaseAbove = 16 << 20
	releaseEvery = 250 * time.Millisecond
)

var release struct {
	sync.Mutex
	last    time.Time
	pending bool
}

// Release tells fb that a buffer of n bytes was just dropped (its last
// reference gone); big ones are returned to the OS now or very soon.
func Release(n int) {
	if n < releaseAbove {
		return
	}
	release.Lock()
	defer release.Unlock()
	if wait := releaseEvery - time.Since(release.last); wait > 0 {
		if !release.pending {
			release.pending = true
			time.AfterFunc(wait, freeNow)
		}
		return
	}
	release.last = time.Now()
	go debug.FreeOSMemory()
}

func freeNow() {
	release.Lock()
	release.pending = false
	release.last = time.Now()
	release.Unlock()
	debug.FreeOSMemory()
}
