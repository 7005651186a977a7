package daemon

import (
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// opControl: acquire (waitMs), release, yield (= release, with a reason
// recorded), status and yield_status (read without changing anything).
func opControl(c *call) (*wire.Response, error) {
	l := c.l
	r := ok(wire.OpControl)
	switch c.req.Action {
	case "acquire":
		wait := time.Duration(0)
		if c.req.WaitMs != nil {
			wait = clampMs(*c.req.WaitMs, 600000)
		}
		if err := l.acquire(c.ctx, c.att, c.req.Reason, wait); err != nil {
			return nil, err
		}
		r.Dispatched = "lease acquired"
	case "release", "yield":
		reason := c.req.Reason
		if c.req.Action == "release" && reason == "" {
			reason = "released"
		}
		if l.release(c.att, reason) {
			r.Dispatched = "lease released"
		} else {
			r.Dispatched = "lease was not held by this attachment; nothing to release"
		}
	case "status", "yield_status":
	case "":
		return nil, wire.Errorf(wire.BadRequest, "action is required: acquire, release, status, yield or yield_status")
	default:
		return nil, wire.Errorf(wire.BadRequest, "action %q is not one of acquire, release, status, yield, yield_status", c.req.Action)
	}
	lv := l.leaseView(c.att)
	r.Lease = &lv
	r.Observation = l.observe(c.att)
	return r, nil
}

// opTakeover is a person taking control (dvv control takeover): the lease
// moves to this attachment at once, an agent holding it is revoked and
// told so, and human_took_over shows in every observation.
func opTakeover(c *call) (*wire.Response, error) {
	c.l.takeover(c.att, c.req.Reason)
	r := ok(wire.OpTakeover)
	lv := c.l.leaseView(c.att)
	r.Lease = &lv
	r.Dispatched = "control taken over by a person"
	r.Observation = c.l.observe(c.att)
	return r, nil
}

// opCancel withdraws the work of a request this connection still has in
// flight: its context ends, so a wait, a run or a transfer stops. The
// cancelled request is still answered, with what its work returned.
func opCancel(c *call) (*wire.Response, error) {
	if len(c.req.Cancels) == 0 {
		return nil, wire.Errorf(wire.BadRequest, "cancel needs cancels: the id of a request sent on this connection")
	}
	r := ok(wire.OpCancel)
	if c.c != nil && c.c.withdraw(c.req.Cancels) {
		r.Dispatched = "request " + string(c.req.Cancels) + " withdrawn"
	} else {
		r.Dispatched = "no request " + string(c.req.Cancels) + " is in flight on this connection (it may have finished)"
	}
	return r, nil
}
