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
		default:
		}
	}
	return h.seq
}

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

// opSubscribe turns the rest of this connection's life into an event
// stream (answers to other requests still arrive, tagged by id).
func opSubscribe(c *call) (*wire.Response, error) {
	if c.c == nil {
		return nil, wire.Errorf(wire.BadRequest, "subscribe needs a socket connection")
	}
	conn := c.c
	if !conn.subscribed.CompareAndSwap(false, true) {
		return nil, wire.Errorf(wire.Busy, "this connection already has an event stream (one per connection)")
	}
	if c.d.subs.Add(1) > maxSubsTotal {
		c.d.subs.Add(-1)
		conn.subscribed.Store(false)
		return nil, wire.Errorf(wire.Busy, "dvvd already serves %d event streams", maxSubsTotal)
	}
	ch := c.d.events.subscribe(c.req.Events)
	go func() {
		defer c.d.subs.Add(-1)
		defer c.d.events.unsubscribe(ch)
		for {
			select {
			case e := <-ch:
				conn.send(&wire.Response{Result: wire.ResultEvent, Event: e})
			case <-conn.ctx.Done():
				return
			}
		}
	}()
	return ok(wire.OpSubscribe), nil
}
