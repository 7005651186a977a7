package daemon

import "github.com/dvvhq/dvv/pkg/wire"

var _ = register(wire.OpSubscribe, typed(opSubscribe))

// opSubscribe turns the rest of this connection's life into an event
// stream (answers to other requests still arrive, tagged by id).
func opSubscribe(c *opCall, a wire.SubscribeArgs) (*wire.SubscribeAnswer, error) {
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
	ch := c.d.events.subscribe(a.Events)
	// The stream outlives this request, so it has its own goroutine; it
	// ends with the connection, which is also what unsubscribes it.
	go func() {
		defer c.d.subs.Add(-1)
		defer c.d.events.unsubscribe(ch)
		for {
			select {
			case e := <-ch:
				conn.sendLine(&wire.EventLine{Result: wire.ResultEvent, Event: e})
			case <-conn.ctx.Done():
				return
			}
		}
	}()
	return &wire.SubscribeAnswer{}, nil
}
