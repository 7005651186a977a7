package daemon

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dvvhq/dvv/pkg/atspi"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
	"github.com/dvvhq/dvv/pkg/xwin"
)

// structure answers the limb's session structure, dialing the sidecar on
// first use, or STRUCTURE_UNAVAILABLE with the reason.
func (l *Limb) structure(ctx context.Context) (limb.Structure, error) {
	if l.dsk == nil {
		return nil, wire.Errorf(wire.NoStructure, "limb %s is a terminal: it has no windows", l.id)
	}
	l.mu.Lock()
	t := l.target
	l.mu.Unlock()
	if t.Protocol == wire.ProtoRDP {
		return nil, wire.Errorf(wire.NoStructure, "limb %s is an RDP limb: dvv reads window structure over a VNC limb's SSH sidecar only (an RDP session's X display is not named by its port)", l.id)
	}
	if l.core.cfg.Structure == nil {
		return nil, wire.Errorf(wire.NoStructure, "this dvvd was built without the SSH sidecar's window structure")
	}
	k := &l.dsk.structure
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.s != nil {
		select {
		case <-k.s.Done():
			k.s.Close()
			k.s = nil
		default:
			return k.s, nil
		}
	}
	if k.err != nil && time.Since(k.failedAt) < structureRetry {
		return nil, k.err
	}
	dctx, cancel := context.WithTimeout(ctx, structureDial)
	defer cancel()
	s, err := l.core.cfg.Structure(dctx, t)
	if err != nil {
		var we *wire.Error
		if !errors.As(err, &we) {
			we = wire.Errorf(wire.NoStructure, "%v", err)
		}
		k.err, k.failedAt = we, time.Now()
		return nil, we
	}
	k.s, k.err = s, nil
	return s, nil
}

// closeStructure ends the sidecar connection (the limb is closing).
func (l *Limb) closeStructure() {
	if l.dsk == nil {
		return
	}
	k := &l.dsk.structure
	k.mu.Lock()
	if k.s != nil {
		k.s.Close()
		k.s = nil
	}
	k.mu.Unlock()
	k.busMu.Lock()
	if k.bus != nil {
		k.bus.Close()
		k.bus, k.busOn = nil, nil
	}
	k.busMu.Unlock()
}

// a11yBus answers the limb's connection to its session's accessibility
// bus, dialling it (authenticated as the session's user) when there is
// none, it ended (the bus or the sidecar went away) or it was made over a
// session since dropped. The connection is shared by the limb's element
// ops and closed with the limb; callers never close it.
func (l *Limb) a11yBus(ctx context.Context) (*atspi.Client, error) {
	st, err := l.structure(ctx)
	if err != nil {
		return nil, err
	}
	k := &l.dsk.structure
	k.busMu.Lock()
	defer k.busMu.Unlock()
	if k.bus != nil && k.busOn == st && k.bus.Alive() {
		return k.bus, nil
	}
	if k.bus != nil {
		k.bus.Close()
		k.bus, k.busOn = nil, nil
	}
	cl, err := atspi.Dial(ctx, st.DialA11y, strconv.Itoa(st.Info().UID))
	if err != nil {
		return nil, err
	}
	k.bus, k.busOn = cl, st
	return cl, nil
}

// structureSignals states window_structure and accessibility from what
// the last look found, never dialing: observations are built on every
// answer. Only the signals op itself looks (probeStructure).
func (l *Limb) structureSignals(out wire.Signals) {
	if l.dsk == nil {
		return
	}
	k := &l.dsk.structure
	if !k.mu.TryLock() {
		return // a look is under way; the part's own entries stand
	}
	defer k.mu.Unlock()
	switch {
	case k.s != nil:
		info := k.s.Info()
		out[wire.SigWindowStructure] = wire.Signal{State: wire.SignalLive,
			Reason: fmt.Sprintf("X display %s over the SSH sidecar (%s)", info.Display, info.Found)}
		if info.A11yBus != "" {
			out[wire.SigAccessibility] = wire.Signal{State: wire.SignalLive, Reason: "the accessibility bus over the SSH sidecar"}
		} else {
			out[wire.SigAccessibility] = wire.Signal{State: wire.SignalAbsent, Reason: info.A11yAbsent}
		}
	case k.err != nil:
		out[wire.SigWindowStructure] = wire.Signal{State: wire.SignalAbsent, Reason: k.err.Message}
		out[wire.SigAccessibility] = wire.Signal{State: wire.SignalAbsent, Reason: k.err.Message}
	}
}

// defaultStructureSignals states window_structure and accessibility in
// every observation: absent where they cannot be (a terminal, RDP, no
// sidecar saved, a dvvd without the sidecar), unknown until the first
// look, then what it found (structureSignals).
func (l *Limb) defaultStructureSignals(out wire.Signals) {
	absent := func(reason string) {
		out[wire.SigAccessibility] = wire.Signal{State: wire.SignalAbsent, Reason: reason}
	}
	if l.dsk == nil {
		absent("a terminal has no desktop")
		return
	}
	l.mu.Lock()
	t := l.target
	l.mu.Unlock()
	switch {
	case t.Protocol == wire.ProtoRDP:
		absent("dvv reads accessibility over a VNC limb's SSH sidecar only")
		return
	case l.core.cfg.Structure == nil:
		absent("this dvvd was built without the SSH sidecar's window structure")
		return
	}
	reason := "not looked for yet: the signals op looks over the desktop's SSH sidecar"
	state := wire.SignalUnknown
	if t.SSHPort == 0 && t.SSHUser == "" {
		state, reason = wire.SignalAbsent, noSidecarSaved
	}
	out[wire.SigWindowStructure] = wire.Signal{State: state, Reason: reason}
	out[wire.SigAccessibility] = out[wire.SigWindowStructure]
	l.structureSignals(out)
}

// probeStructure looks for the session (once, then from memory) so the
// signals op reports window_structure and accessibility as they are. A
// desktop with no sidecar saved is not dialed here: signals is answered
// inline, and port 22 of a VNC host may not answer at all.
func (l *Limb) probeStructure(ctx context.Context, out wire.Signals) {
	if l.dsk == nil {
		return
	}
	l.mu.Lock()
	t := l.target
	l.mu.Unlock()
	if t.Protocol != wire.ProtoRDP && t.SSHPort == 0 && t.SSHUser == "" {
		return // defaultStructureSignals said so, or what a look asked for by windows found
	}
	if _, err := l.structure(ctx); err != nil {
		var we *wire.Error
		errors.As(err, &we)
		out[wire.SigWindowStructure] = wire.Signal{State: wire.SignalAbsent, Reason: we.Message}
		out[wire.SigAccessibility] = wire.Signal{State: wire.SignalAbsent, Reason: we.Message}
		return
	}
	l.structureSignals(out)
}

// xconn opens an X connection to the limb's session over the sidecar.
// The caller closes it.
func (l *Limb) xconn(ctx context.Context) (*xwin.Conn, limb.StructureInfo, error) {
	s, err := l.structure(ctx)
	if err != nil {
		return nil, limb.StructureInfo{}, err
	}
	info := s.Info()
	nc, err := s.DialX11(ctx)
	if err != nil {
		l.dropStructure(s)
		return nil, info, err
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() }) // a stalled X setup ends with the client
	x, err := xwin.Open(nc, info.XCookie)
	stop()
	if err != nil {
		l.dropStructure(s)
		return nil, info, wire.Errorf(wire.NoStructure, "the X server %s refused a new connection over the sidecar: %v", info.Display, err)
	}
	// A server that stops answering must not hold the handler: when the
	// client goes away the connection is closed, failing any awaited reply.
	context.AfterFunc(ctx, x.Close)
	return x, info, nil
}

// dropStructure forgets a session that failed, so the next call looks again.
func (l *Limb) dropStructure(s limb.Structure) {
	k := &l.dsk.structure
	k.mu.Lock()
	if k.s == s {
		k.s.Close()
		k.s = nil
	}
	k.mu.Unlock()
}
