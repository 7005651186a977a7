package daemon

import (
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpHello, typed(opHello))

func opHello(c *opCall, _ wire.HelloArgs) (*wire.HelloAnswer, error) {
	return &wire.HelloAnswer{Daemon: daemonInfo(c)}, nil
}

var _ = register(wire.OpAttach, typed(opAttach))

func opAttach(c *opCall, _ wire.AttachArgs) (*wire.AttachAnswer, error) {
	return &wire.AttachAnswer{Daemon: daemonInfo(c)}, nil
}

// daemonInfo answers hello and attach; the attachment was made from the
// request's envelope before dispatch.
func daemonInfo(c *opCall) *wire.DaemonInfo {
	return &wire.DaemonInfo{Version: Version, Protocol: wire.ProtocolVersion, ID: c.d.cfg.ID, PID: os.Getpid(),
		Attachment: c.att.name, Role: c.att.grant.Role, Caps: c.att.grant.List()}
}

var _ = register(wire.OpPing, typed(opPing))

func opPing(c *opCall, _ wire.PingArgs) (*wire.PingAnswer, error) { return &wire.PingAnswer{}, nil }

var _ = register(wire.OpShutdown, typed(opShutdown))

func opShutdown(c *opCall, _ wire.ShutdownArgs) (*wire.ShutdownAnswer, error) {
	go c.d.Shutdown()
	return &wire.ShutdownAnswer{}, nil
}

func (l *Limb) summary(a *attachment) wire.LimbSummary {
	o := l.observe(a)
	caps := listed(l.core.cfg.Ops, l.kind, o.Perceive) // the ops registered as listedOn…
	return wire.LimbSummary{LimbID: l.id, Protocol: o.Protocol, Address: o.Address, Port: o.Port, Slot: o.Slot,
		State: o.State, Width: o.Size.W, Height: o.Size.H, Caps: caps, Lease: o.Lease}
}

var _ = register(wire.OpLimbs, typed(opLimbs))

func opLimbs(c *opCall, _ wire.LimbsArgs) (*wire.LimbsAnswer, error) {
	r := &wire.LimbsAnswer{}
	r.Limbs, r.Available = []wire.LimbSummary{}, []wire.LimbSummary{}
	c.d.mu.Lock()
	all := make([]*Limb, 0, len(c.d.limbs))
	for _, l := range c.d.limbs {
		all = append(all, l)
	}
	mine := map[string]bool{}
	for id := range c.att.limbs {
		mine[id] = true
	}
	c.d.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	for _, l := range all {
		if mine[l.id] {
			r.Limbs = append(r.Limbs, l.summary(c.att))
		} else {
			r.Available = append(r.Available, l.summary(c.att))
		}
	}
	return r, nil
}

var _ = register(wire.OpOpen, typed(opOpen))

func opOpen(c *opCall, a wire.OpenArgs) (*wire.OpenAnswer, error) {
	t, err := c.d.targetFor(a)
	if err != nil {
		return nil, err
	}
	l, err := c.d.openLimb(t)
	if err != nil {
		return nil, err
	}
	note := l.adopt(t)
	c.d.attachLimb(c.att, l)
	if t.Record {
		go l.recordWhenConnected()
	}
	r := &wire.OpenAnswer{}
	r.LimbID = l.id
	r.Observation = l.observe(c.att)
	r.Dispatched = joinNotes(displayNote(a), note)
	return r, nil
}

// displayNote says how a VNC display in open's address became its port
// ("display 60 → port 5960"), so nobody wonders why 60 was not dialled.
func displayNote(a wire.OpenArgs) string {
	if a.HostID != "" || a.Address == "" {
		return ""
	}
	ep, err := hosts.ParseAddress(a.Protocol, a.Address)
	if err != nil {
		return ""
	}
	return ep.Note
}

func joinNotes(notes ...string) string {
	var kept []string
	for _, n := range notes {
		if n != "" {
			kept = append(kept, n)
		}
	}
	return strings.Join(kept, "; ")
}

var _ = register(wire.OpClose, typed(opClose), goneIsDone)

func opClose(c *opCall, _ wire.CloseArgs) (*wire.CloseAnswer, error) {
	if l := c.l; l != nil {
		if err := l.checkPersonHold(c.att, "close"); err != nil {
			return nil, err
		}
		c.d.closeLimb(l)
	}
	return &wire.CloseAnswer{}, nil
}

var _ = register(wire.OpStatus, typed(opStatus), listedOnDesktops, listedOnTerminals)

func opStatus(c *opCall, _ wire.StatusArgs) (*wire.StatusAnswer, error) {
	l := c.l
	r := &wire.StatusAnswer{}
	r.Observation = l.observe(c.att)
	return r, nil
}

var _ = register(wire.OpSignals, typed(opSignals), listedOnDesktops, listedOnTerminals)

func opSignals(c *opCall, _ wire.SignalsArgs) (*wire.SignalsAnswer, error) {
	l := c.l
	r := &wire.SignalsAnswer{}
	r.Signals = l.observe(c.att).Signals
	l.probeStructure(c.ctx, r.Signals)
	return r, nil
}

var _ = register(wire.OpReconnect, typed(opReconnect))

func opReconnect(c *opCall, a wire.ReconnectArgs) (*wire.ReconnectAnswer, error) {
	l := c.l
	if err := l.checkPersonHold(c.att, "reconnect"); err != nil {
		return nil, err
	}
	timeout := 20 * time.Second
	if a.TimeoutMs != nil {
		timeout = clampMs(*a.TimeoutMs, 60000)
	}
	l.mu.Lock()
	ch, before, wasUp := l.stateCh, l.reconnects, l.part.liveLocked()
	l.mu.Unlock()
	// A reconnect starts afresh: the lease is released here, and the
	// typing fence re-arms when the new session clears the mirror.
	l.resetLease(c.att, "the limb was reconnected")
	l.requestRedial()
	// Wait for a new session (connected again), or a failure.
	deadline := time.After(timeout)
	for {
		select {
		case <-ch:
		case <-deadline:
			r := &wire.ReconnectAnswer{}
			r.Observation = l.observe(c.att)
			return r, wire.Errorf(wire.Timeout, "limb %s did not come back within %v (state %s)", l.id, timeout, r.Observation.State)
		case <-c.ctx.Done():
			return nil, wire.Errorf(wire.Timeout, "the client went away")
		}
		l.mu.Lock()
		st, n := l.state, l.reconnects
		ch = l.stateCh
		l.mu.Unlock()
		if st == wire.StateConnected && (n > before || !wasUp) {
			r := &wire.ReconnectAnswer{}
			r.Observation = l.observe(c.att)
			return r, nil
		}
		if st == wire.StateFailed || st == wire.StateClosed {
			o := l.observe(c.att)
			e := asWireError(wire.Errorf(wire.NotConnected, "limb %s failed to reconnect", l.id))
			if o.LastError != nil {
				e = &wire.Error{Code: o.LastError.Code, Message: o.LastError.Message, Next: o.LastError.Code.Info().Next}
			}
			e.Observation = o
			return nil, e
		}
	}
}

var _ = register(wire.OpHistory, typed(opHistory), unlogged)

func opHistory(c *opCall, _ wire.HistoryArgs) (*wire.HistoryAnswer, error) {
	l := c.l
	r := &wire.HistoryAnswer{}
	r.History = l.history.List()
	return r, nil
}

func clampMs(ms, max int) time.Duration {
	if ms < 0 {
		ms = 0
	}
	if ms > max {
		ms = max
	}
	return time.Duration(ms) * time.Millisecond
}
