// Package hoptracetest records the marks of pkg/hoptrace in the test's own
// process, in memory, for benchmarks that report each stage of a change.
package hoptracetest

import (
	"sync"

	"github.com/dvvhq/dvv/pkg/hoptrace"
)

// maxEvents bounds what is held between two Drains.
const maxEvents = 1 << 20

var (
	mu     sync.Mutex
	events []hoptrace.Event
)

// Record makes hoptrace keep every mark of this process until Drain.
func Record() {
	hoptrace.SetSink(func(e hoptrace.Event) {
		mu.Lock()
		if len(events) < maxEvents {
			events = append(events, e)
		}
		mu.Unlock()
	})
}

// Drain returns the marks recorded since the last Drain.
func Drain() []hoptrace.Event {
	mu.Lock()
	defer mu.Unlock()
	e := events
	events = nil
	return e
}
