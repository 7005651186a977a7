package daemon

import (
	"time"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// observe builds the dvv.observation.v1 object for a (which may be nil).
func (l *Limb) observe(a *attachment) *wire.Observation {
	l.mu.Lock()
	o := &wire.Observation{Schema: wire.ObservationSchema, LimbID: l.id, Protocol: l.target.Protocol, Kind: l.kind,
		Address: l.target.Address, Port: l.target.Port, Slot: l.target.Slot, State: l.state, Perceive: l.perceive,
		Reconnects: l.reconnects, LastError: l.lastErr, Lease: l.leaseViewLocked(a)}
	l.mu.Unlock()
	if last := l.part.observe(o, a); !last.IsZero() {
		o.LastChangeMs = time.Since(last).Milliseconds()
	}
	o.Signals = l.signals()
	o.Machine = l.machineEvent()
	o.Guest = l.guestFacts()
	return o
}

// guestFacts are what the machine said of itself when a channel into it
// connected: a terminal's own SSH connection, else a desktop's files
// sidecar once it opened.
func (l *Limb) guestFacts() *wire.GuestFacts {
	if l.tty != nil {
		if term, err := l.liveTerminal(); err == nil {
			if g, ok := term.(limb.Guest); ok {
				return g.Facts()
			}
		}
		return nil
	}
	return l.sidecarFacts.Load()
}

// signals never defaults: with no live session every entry is unknown with
// the reason, except window_structure, which no protocol here carries.
func (l *Limb) signals() wire.Signals {
	s := l.part.signals()
	out := wire.Signals{}
	for k, v := range s {
		out[k] = v
	}
	if len(out) == 0 {
		reason := "the limb is " + l.stateName() + "; signals are negotiated on connect"
		for _, name := range []string{wire.SigLEDState, wire.SigClipboard, wire.SigDesktopResize, wire.SigCursorShape} {
			out[name] = wire.Signal{State: wire.SignalUnknown, Reason: reason}
		}
	}
	out[wire.SigWindowStructure] = wire.Signal{State: wire.SignalAbsent,
		Reason: "no protocol dvv speaks carries window structure; read the pixels"}
	l.defaultStructureSignals(out)
	return out
}

func (l *Limb) stateName() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

// checkPersonHold refuses a limb-changing op (close, reconnect, a group
// change that closes it) to an attachment that is not a person while a
// person holds the limb or has paused agent input on it: the agent hears
// LEASE_REVOKED with human_took_over, as it does for input.
func (l *Limb) checkPersonHold(a *attachment, op string) error {
	if a.person.Load() {
		return nil
	}
	l.mu.Lock()
	ls := &l.lease
	held := ls.human && ls.holder != nil && ls.holder != a
	paused := l.pausedLocked()
	holder := ""
	if held {
		holder = ls.holder.name
	}
	l.mu.Unlock()
	var e *wire.Error
	switch {
	case held:
		e = wire.Errorf(wire.LeaseRevoked, "a person (%s) took over limb %s; %s is refused to agents while they hold it, and nothing was done", holder, l.id, op)
	case paused:
		e = wire.Errorf(wire.LeaseRevoked, "a person paused agent input on limb %s; %s is refused until they resume, and nothing was done", l.id, op)
	default:
		return nil
	}
	e.Observation = l.observe(a)
	return e
}
