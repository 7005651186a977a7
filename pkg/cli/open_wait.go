package cli

import (
	"fmt"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// waitRound bounds one wait request, so a failed connection attempt is
// reported soon after it happens rather than at the deadline.
const waitRound = 2 * time.Second

// openAndWait opens the limb and returns once it is connected, or with the
// limb's coded error (its first failed attempt) or TIMEOUT. The limb stays
// open either way: dvvd keeps retrying until `dvv close`.
func (e *env) openAndWait(req wire.OpenArgs, timeout time.Duration) error {
	resp, err := e.roundTrip(req)
	if err != nil {
		return e.fail(err)
	}
	id := resp.LimbID
	sp := startSpinner(e.stderr, "connecting "+id)
	defer sp.Stop()
	deadline := time.Now().Add(timeout)
	for {
		step := min(time.Until(deadline), waitRound)
		if step < time.Millisecond {
			step = time.Millisecond
		}
		w, err := e.roundTrip(wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(int(step.Milliseconds()))})
		if err != nil {
			return e.fail(err)
		}
		if w.Observation != nil {
			resp.Observation = w.Observation
		}
		if w.Wait != nil && w.Wait.Settled {
			sp.Stop()
			if !e.human() {
				e.printJSON(resp)
				return nil
			}
			fmt.Fprintln(e.stdout, id)
			if o := resp.Observation; o != nil {
				fmt.Fprintf(e.stderr, "connected %s %s slot %d\n", o.Protocol, endpoint(o.Address, o.Port), o.Slot)
			}
			return nil
		}
		if o := w.Observation; o != nil && o.LastError != nil {
			le := o.LastError
			return e.fail(&wire.Error{Code: le.Code, Message: fmt.Sprintf("limb %s did not connect: %s", id, le.Message),
				Next: fmt.Sprintf("%s; dvvd keeps retrying: `dvv wait %s --until connected`, or `dvv close %s`", le.Code.Info().Next, id, id)})
		}
		if !time.Now().Before(deadline) {
			return e.fail(&wire.Error{Code: wire.Timeout, Message: fmt.Sprintf("limb %s is still %s after %v", id, stateOf(w.Observation), timeout),
				Next: fmt.Sprintf("`dvv wait %s --until connected` waits longer; `dvv close %s` gives up", id, id)})
		}
	}
}

func stateOf(o *wire.Observation) string {
	if o == nil {
		return "connecting"
	}
	return string(o.State)
}

// fail prints a coded failure as JSON under --json (as call does) and
// returns it.
func (e *env) fail(err error) error {
	if we, ok := err.(*wire.Error); ok && e.json {
		e.printJSON(errorResponse(we))
	}
	return err
}
