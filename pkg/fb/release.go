package fb

import (
	"fmt"
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
	// shrinkAfter: a frame's pixel array is swapped for a smaller one only
	// when the size before held at least this long. A server flipping
	// between a huge and a tiny desktop then reuses one array instead of
	// dropping and allocating a huge one on every flip, so at most one
	// array per copy of the frame is live and the collector has nothing
	// to chase.
	shrinkAfter = 2 * time.Second
)

// Pixels returns a cleared (all zero) slice of n bytes for a frame's
// pixels, reusing p's array when it is big enough: always when it is at
// most twice n, and when bigger only if the previous resize (*last) was
// less than shrinkAfter ago; Trim gives the rest back once the size has
// held. A dropped array is passed to Release. *last becomes now. Callers
// drop their own reference to p first, so the old array can be collected
// while the new one is allocated.
func Pixels(p []byte, n int, last *time.Time) []byte {
	now := time.Now()
	recent := !last.IsZero() && now.Sub(*last) < shrinkAfter
	*last = now
	if cap(p) >= n && (cap(p) <= 2*n || recent) {
		p = p[:n]
		clear(p)
		return p
	}
	dropped := cap(p)
	p = nil
	Release(dropped)
	return make([]byte, n)
}

// Oversized reports whether Pixels kept an array more than twice p's
// length, which Trim will swap for a smaller one.
func Oversized(p []byte) bool { return cap(p) > 2*len(p) }

// Trim returns p in an array of its own size when Pixels kept a bigger
// one and the size has held shrinkAfter since last; otherwise p itself.
// The pixels are kept.
func Trim(p []byte, last time.Time) []byte {
	if !Oversized(p) || time.Since(last) < shrinkAfter {
		return p
	}
	q := make([]byte, len(p))
	copy(q, p)
	Release(cap(p))
	return q
}

// The resize storm rule: a server resizing its desktop more than
// StormResizes times within StormWindow is refused. Every resize clears
// the whole frame (a VNC client's own copy and the mirror), so a server
// flipping between a huge and a tiny desktop would keep the client
// clearing hundreds of MB a second. Real desktops resize a few times when
// a window is dragged or a monitor plugged in: far below.
const (
	StormResizes = 60
	StormWindow  = 10 * time.Second
)

// StormError is a resize refused by StormGuard.
type StormError struct {
	Resizes int           // resizes counted, this one included
	Within  time.Duration // the time they came in
}

func (e *StormError) Error() string {
	return fmt.Sprintf("resize storm: %d resizes in %s (at most %d in %s are taken)",
		e.Resizes, e.Within.Round(time.Millisecond), StormResizes, StormWindow)
}

// StormGuard counts a connection's resizes. The zero value is ready.
type StormGuard struct {
	at [StormResizes]time.Time // when the latest resizes came, a ring
	n  int
}

// Resize counts one resize and returns a *StormError, before anything is
// allocated, when it is one too many.
func (g *StormGuard) Resize(now time.Time) error {
	oldest := &g.at[g.n%StormResizes]
	if g.n >= StormResizes && now.Sub(*oldest) < StormWindow {
		return &StormError{Resizes: StormResizes + 1, Within: now.Sub(*oldest)}
	}
	*oldest = now
	g.n++
	return nil
}

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
