package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// waitRound bounds one wait request, so a failed connection attempt is
// reported soon after it happens rather than at the deadline.
const waitRound = 2 * time.Second

// openAndWait opens the limb and returns once it is connected, or with the
// limb's coded error (its first failed attempt) or TIMEOUT. A limb this
// call made is closed again when the wait fails, unless keep: a script's
// failed open must not leave dvvd dialling a wrong address forever. A
// limb that was already open (another shell's) is never closed here.
func (e *env) openAndWait(req wire.OpenArgs, timeout time.Duration, keep bool) error {
	before, err := quiet(e, (*client.Client).Limbs, wire.LimbsArgs{})
	if err != nil {
		return e.fail(err)
	}
	resp, err := quiet(e, (*client.Client).Open, req)
	if err != nil {
		return e.fail(err)
	}
	id := resp.LimbID
	made := !hasLimb(before, id)
	sp := startSpinner(e.dataErr(), "connecting "+oneLine(id))
	defer sp.Stop()
	deadline := time.Now().Add(timeout)
	for {
		step := min(time.Until(deadline), waitRound)
		if step < time.Millisecond {
			step = time.Millisecond
		}
		w, err := quiet(e, (*client.Client).Wait, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(int(step.Milliseconds()))})
		if err != nil {
			return e.fail(e.giveUp(id, made, keep, err))
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
				fmt.Fprintf(e.stderr, "connected %s %s slot %d%s\n", o.Protocol, endpoint(o.Address, o.Port), o.Slot, noteSuffix(resp.Dispatched))
			}
			return nil
		}
		if o := w.Observation; o != nil && o.LastError != nil {
			le := o.LastError
			return e.fail(e.giveUp(id, made, keep, &wire.Error{Code: le.Code, Message: fmt.Sprintf("limb %s did not connect: %s", id, le.Message),
				Next: le.Code.Info().Next}))
		}
		if !time.Now().Before(deadline) {
			return e.fail(e.giveUp(id, made, keep, &wire.Error{Code: wire.Timeout,
				Message: fmt.Sprintf("limb %s is still %s after %v", id, stateOf(w.Observation), timeout),
				Next:    "a longer --wait-timeout waits longer"}))
		}
	}
}

// giveUp ends a failed wait: it closes the limb this open made (unless
// keep; also after Ctrl+C) and says in err's next move what became of it.
func (e *env) giveUp(id string, made, keep bool, err error) error {
	var fate string
	switch {
	case keep || !made:
		fate = fmt.Sprintf("dvvd keeps retrying: `dvv wait %s --until connected`, or `dvv close %s`", id, id)
		if !made && !keep {
			fate = "the limb was already open, so it was left as it was; " + fate
		}
	default:
		if e.ctx.Err() != nil { // interrupted: the close still goes out
			ctx := e.ctx
			e.ctx = context.Background()
			defer func() { e.ctx = ctx }()
		}
		if _, cerr := quiet(e, (*client.Client).CloseLimb, wire.CloseArgs{LimbID: id}); cerr != nil {
			fate = fmt.Sprintf("closing it failed too (%v): `dvv close %s`", cerr, id)
		} else {
			fate = "the limb was closed: open it again once that is done (--keep leaves it open)"
		}
	}
	we, ok := err.(*wire.Error)
	if !ok {
		return err
	}
	next := strings.TrimRight(strings.TrimSpace(we.Next), ".;")
	if next != "" {
		next += "; "
	}
	out := *we
	out.Next = next + fate
	return &out
}

func hasLimb(r *wire.LimbsAnswer, id string) bool {
	for _, l := range append(append([]wire.LimbSummary{}, r.Limbs...), r.Available...) {
		if l.LimbID == id {
			return true
		}
	}
	return false
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
		e.printJSON(wire.ErrorReply(nil, we))
	}
	return err
}
