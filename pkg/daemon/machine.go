package daemon

import (
	"context"
	"time"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

// A limb may know its machine (limb.Target.Machine): the hypervisor side of
// a VM whose screen or shell the limb drives. The machine_* ops act on it
// through pkg/machine, one connection per act. A restore or a reset
// replaces what the screen shows under the limb, so it is fenced like a
// resize: the geometry generation moves on, every attachment's typing
// fence arms, the limb's session is dialled afresh, and the observation
// says what happened (MachineEvent). Leases are kept: the agent that held
// the limb still holds it.

// machineActTimeout bounds one act on a hypervisor (a snapshot of a large
// guest's memory takes a while).
const machineActTimeout = 5 * time.Minute

// withMachine opens the limb's machine for one act and closes it after.
func (c *opCall) withMachine(fn func(ctx context.Context, m machine.Machine) error) error {
	l := c.l
	l.mu.Lock()
	s := l.target.Machine
	l.mu.Unlock()
	if s == "" {
		return &wire.Error{Code: wire.NoMachine, Message: "limb " + l.id + " knows no machine: it was opened without one",
			Next: wire.NoMachine.Info().Next}
	}
	sp, err := machine.Parse(s)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.ctx, machineActTimeout)
	defer cancel()
	m, err := machine.Open(ctx, sp, c.d.cfg.MachineSSH)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := fn(ctx, m); err != nil {
		if ctx.Err() != nil {
			return wire.Errorf(wire.Timeout, "machine %s did not answer: %v", sp, err)
		}
		return err
	}
	return nil
}

// machineAct runs an act that changes the machine and answers its state
// after it. Agents are refused while a person holds the limb.
func (c *opCall) machineAct(op string, fn func(ctx context.Context, m machine.Machine) error) (*wire.MachineState, error) {
	if err := c.l.checkPersonHold(c.att, op); err != nil {
		return nil, err
	}
	st, err := c.actThenState(fn)
	if err != nil {
		return nil, err
	}
	return &st, nil
}

// actThenState runs fn on the limb's machine and reads its state after.
func (c *opCall) actThenState(fn func(ctx context.Context, m machine.Machine) error) (wire.MachineState, error) {
	var st wire.MachineState
	err := c.withMachine(func(ctx context.Context, m machine.Machine) error {
		if err := fn(ctx, m); err != nil {
			return err
		}
		var err error
		st, err = m.State(ctx)
		return err
	})
	return st, err
}

// machineRenew runs a restore or a reset: acts in flight finish first and
// acts sent meanwhile wait (enterActGate), the generation moves on so
// every fence arms, and the limb's session is dialled again; it answers
// once the limb is connected again (or timeout passed: TIMEOUT with the
// observation, the act itself done).
func (c *opCall) machineRenew(op, act, snapshot string, timeoutMs *int, fn func(ctx context.Context, m machine.Machine) error) (*wire.MachineState, *wire.Observation, error) {
	l := c.l
	if err := l.checkPersonHold(c.att, op); err != nil {
		return nil, nil, err
	}
	timeout := 20 * time.Second
	if timeoutMs != nil {
		timeout = clampMs(*timeoutMs, 60000)
	}
	l.machineGate.Lock()
	defer l.machineGate.Unlock()
	st, err := c.actThenState(fn)
	if err != nil {
		return nil, nil, err
	}
	ev := &wire.MachineEvent{Act: act, Snapshot: snapshot, AtMs: time.Now().UnixMilli()}
	if l.dsk != nil {
		l.dsk.buf.Renew()
		ev.Generation = l.dsk.buf.Resizes()
	}
	l.mu.Lock()
	l.machineEv = ev
	before := l.reconnects
	l.mu.Unlock()
	l.core.log.Info("limb machine renewed", "limb", l.id, "act", act)
	l.core.events.publish(&wire.Event{Kind: "limb.state", LimbID: l.id, Detail: "machine " + act})
	l.requestRedial()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		state, n, ch := l.state, l.reconnects, l.stateCh
		l.mu.Unlock()
		if state == wire.StateConnected && n > before {
			return &st, l.observe(c.att), nil
		}
		if state == wire.StateClosed {
			return nil, nil, wire.Errorf(wire.LimbGone, "limb %s was closed", l.id)
		}
		select {
		case <-ch:
		case <-deadline.C:
			e := wire.Errorf(wire.Timeout, "the machine was %s, and limb %s's screen did not come back within %v", machineEventWords(ev), l.id, timeout)
			e.Observation = l.observe(c.att)
			return nil, nil, e
		case <-c.ctx.Done():
			return nil, nil, wire.Errorf(wire.Timeout, "the client went away after the machine was %s", machineEventWords(ev))
		}
	}
}
