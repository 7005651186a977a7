package rfbserver

import (
	"sync"
	"sync/atomic"
	"time"
)

// An agent's short acts (a screen capture, a click) come before viewers:
// while one runs, sessions hold their next update back, for at most
// maxYield, so viewers watching a busy desktop do not slow the agent
// they are watching. The update then carries everything that changed.
var (
	prioMu   sync.Mutex
	prioRuns int
	prioIdle = closedChan()
)

// maxYield bounds how long a viewer's update waits for an agent's act.
const maxYield = 100 * time.Millisecond

// While an agent acts (an act within agentActiveFor), viewers get at most
// busyRate updates a second instead of 60: a person follows an agent's
// work as well at that rate, and the agent keeps the cores.
const (
	agentActiveFor = 2 * time.Second
	busyRate       = 15
)

var lastAct atomic.Int64 // unix nanoseconds of the latest agent act's end

// updateInterval is the pacing interval for now.
func updateInterval(now time.Time) time.Duration {
	if prioBusy() || now.Sub(time.Unix(0, lastAct.Load())) < agentActiveFor {
		return time.Second / busyRate
	}
	return minUpdateInterval
}

func prioBusy() bool {
	prioMu.Lock()
	defer prioMu.Unlock()
	return prioRuns > 0
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// Priority marks an agent's act as running until the returned func is
// called.
func Priority() (done func()) {
	prioMu.Lock()
	if prioRuns == 0 {
		prioIdle = make(chan struct{})
	}
	prioRuns++
	prioMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			lastAct.Store(time.Now().UnixNano())
			prioMu.Lock()
			if prioRuns--; prioRuns == 0 {
				close(prioIdle)
			}
			prioMu.Unlock()
		})
	}
}

// yieldToAgent waits until no agent act runs, at most maxYield.
func yieldToAgent() {
	prioMu.Lock()
	idle := prioIdle
	prioMu.Unlock()
	select {
	case <-idle:
		return
	default:
	}
	t := time.NewTimer(maxYield)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}
