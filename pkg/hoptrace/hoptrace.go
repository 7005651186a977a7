// Package hoptrace timestamps the stages a desktop change goes through in
// dvvd (read from the server, decoded into the mirror, planned, encoded
// and written to a viewer), for latency measurements. It records nothing
// unless enabled (DVV_HOPTRACE=1 or Enable), and then costs a lock per
// mark. DVV_HOPTRACE=/a/file appends each mark there as a line instead
// ("unix-nanoseconds who stage"), so a test can follow dvvd's stages.
package hoptrace

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Event is one stage reached by one party (a client's framebuffer, a
// server session).
type Event struct {
	At    time.Time
	Who   any
	Stage string
}

var (
	on     atomic.Bool
	mu     sync.Mutex
	events []Event
)

var file *os.File

func init() {
	switch v := os.Getenv("DVV_HOPTRACE"); {
	case v == "1":
		on.Store(true)
	case v != "":
		f, err := os.OpenFile(v, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			file = f
			on.Store(true)
		}
	}
}

// Enable turns recording on.
func Enable() { on.Store(true) }

// On reports whether marks are recorded.
func On() bool { return on.Load() }

// Mark records that who reached stage now.
func Mark(who any, stage string) {
	if !on.Load() {
		return
	}
	now := time.Now()
	if file != nil {
		fmt.Fprintf(file, "%d %p %s\n", now.UnixNano(), who, stage)
		return
	}
	mu.Lock()
	if len(events) < 1<<20 {
		events = append(events, Event{At: now, Who: who, Stage: stage})
	}
	mu.Unlock()
}

// Drain returns the events recorded since the last Drain.
func Drain() []Event {
	mu.Lock()
	defer mu.Unlock()
	e := events
	events = nil
	return e
}
