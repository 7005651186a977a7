// Package hoptrace timestamps the stages a desktop change goes through in
// dvvd (read from the server, decoded into the mirror, planned, encoded
// and written to a viewer), for latency measurements. It records nothing
// unless a sink is set, and then costs the sink's work per mark.
// DVV_HOPTRACE=/a/file (an absolute path) makes dvvd append each mark
// there as a line ("unix-nanoseconds who stage"), so a test can follow
// dvvd's stages; a test records its own process's marks in memory with
// internal/hoptracetest.
package hoptrace

import (
	"fmt"
	"os"
	"path/filepath"
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

// sink receives every mark; nil: marks are not recorded.
var sink atomic.Pointer[func(Event)]

func init() {
	if v := os.Getenv("DVV_HOPTRACE"); filepath.IsAbs(v) {
		if f, err := os.OpenFile(v, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			SetSink(fileSink(f))
		}
	}
}

// fileSink appends each mark to f as one line: one write each, to a file
// opened for appending, so lines from several goroutines never interleave.
func fileSink(f *os.File) func(Event) {
	return func(e Event) {
		fmt.Fprintf(f, "%d %p %s\n", e.At.UnixNano(), e.Who, e.Stage)
	}
}

// SetSink makes fn receive every mark from now on (nil: none).
func SetSink(fn func(Event)) {
	if fn == nil {
		sink.Store(nil)
		return
	}
	sink.Store(&fn)
}

// On reports whether marks are recorded.
func On() bool { return sink.Load() != nil }

// Mark records that who reached stage now.
func Mark(who any, stage string) {
	if fn := sink.Load(); fn != nil {
		(*fn)(Event{At: time.Now(), Who: who, Stage: stage})
	}
}
