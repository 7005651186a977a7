package rfbserver

import (
	"runtime"
	"sync/atomic"
)

// Shared encodings are copies made for the hub (a frame of JPEG on a
// photographic 8K desktop is about 45 MiB), and they become garbage as the
// hub drops them. Beside a live heap of hundreds of MiB (the mirror and
// the RFB client's copy of a big desktop), Go's collector would let that
// garbage grow to the live heap's size again before running: twice the
// memory, for nothing. So once the hubs have dropped collectEvery bytes,
// a collection runs in the background. Marking is cheap here: the big
// buffers hold no pointers.
const collectEvery = 64 << 20

var (
	droppedBytes atomic.Int64
	collecting   atomic.Bool
	collections  atomic.Int64 // started, for tests
)

// dropped notes n bytes let go by a hub.
func dropped(n int) {
	if droppedBytes.Add(int64(n)) < collectEvery || !collecting.CompareAndSwap(false, true) {
		return
	}
	droppedBytes.Store(0)
	collections.Add(1)
	go func() {
		defer collecting.Store(false)
		runtime.GC()
	}()
}
