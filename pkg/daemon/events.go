package daemon

import (
	"slices"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// eventHub fans daemon events (limb state, leases, op start/end) out to
// subscribed connections. A subscriber that cannot keep up loses events;
// it never slows the daemon down.
type eventHub struct {
	mu   sync.Mutex
	seq  uint64
	subs map[chan *wire.Event][]string
}

func newEventHub() *eventHub { return &eventHub{subs: map[chan *wire.Event][]string{}} }

// publish stamps e and offers it to every subscriber whose filter takes
// it. The sequence number is given under the same lock as the fan-out, so
// every subscriber sees events in seq order; a seq gap tells a slow
// subscriber it lost some.
func (h *eventHub) publish(e *wire.Event) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	e.Seq, e.AtUs = h.seq, time.Now().UnixMicro()
	for ch, kinds := range h.subs {
		if len(kinds) > 0 && !slices.Contains(kinds, e.Kind) {
			continue
		}
		select {
		case ch <- e:
		default: // full: drop rather than block the publisher, which may hold a limb's lock
		}
	}
	return h.seq
}

// subscribe registers a stream for kinds (none = every kind). The buffer
// absorbs a burst (a group_run over many limbs emits two events per
// member) while the connection's writer catches up.
func (h *eventHub) subscribe(kinds []string) chan *wire.Event {
	ch := make(chan *wire.Event, 1024)
	h.mu.Lock()
	h.subs[ch] = kinds
	h.mu.Unlock()
	return ch
}

func (h *eventHub) unsubscribe(ch chan *wire.Event) {
	h.mu.Lock()
	delete(h.subs, ch)
	h.mu.Unlock()
}
