package daemon

import (
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpControl, typed(opControl), recorded)

// opControl: acquire (waitMs), release, yield (= release, with a reason
// recorded), status and yield_status (read without changing anything).
func opControl(c *opCall, a wire.ControlArgs) (*wire.ControlAnswer, error) {
	l := c.l
	r := &wire.ControlAnswer{}
	switch a.Action {
	case "acquire":
		wait := time.Duration(0)
		if a.WaitMs != nil {
			wait = clampMs(*a.WaitMs, 600000)
		}
		if err := l.acquire(c.ctx, c.att, a.Reason, wait); err != nil {
			return nil, err
		}
		r.Dispatched = "lease acquired"
	case "release", "yield":
		reason := a.Reason
		if a.Action == "release" && reason == "" {
			reason = "released"
		}
		if l.release(c.att, reason) {
			r.Dispatched = "lease released"
		} else {
			r.Dispatched = "lease was not held by this attachment; nothing to release"
		}
	case "status", "yield_status": // read only
	}
	lv := l.leaseView(c.att)
	r.Lease = &lv
	r.Observation = l.observe(c.att)
	return r, nil
}

var _ = register(wire.OpTakeover, typed(opTakeover), recorded)

// opTakeover is a person taking control (dvv control takeover): the lease
// moves to this attachment at once, an agent holding it is revoked and
// told so, and human_took_over shows in every observation.
func opTakeover(c *opCall, a wire.TakeoverArgs) (*wire.TakeoverAnswer, error) {
	c.l.takeover(c.att, a.Reason)
	r := &wire.TakeoverAnswer{}
	lv := c.l.leaseView(c.att)
	r.Lease = &lv
	r.Dispatched = "control taken over by a person"
	r.Observation = c.l.observe(c.att)
	return r, nil
}

var _ = register(wire.OpCancel, typed(opCancel))

// opCancel withdraws the work of a request this connection still has in
// flight: its context ends, so a wait, a run or a transfer stops. The
// cancelled request is still answered, with what its work returned.
func opCancel(c *opCall, a wire.CancelArgs) (*wire.CancelAnswer, error) {
	r := &wire.CancelAnswer{}
	if c.c != nil && c.c.withdraw(a.Cancels) {
		r.Dispatched = "request " + string(a.Cancels) + " withdrawn"
	} else {
		r.Dispatched = "no request " + string(a.Cancels) + " is in flight on this connection (it may have finished)"
	}
	return r, nil
}
