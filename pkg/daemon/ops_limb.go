package daemon

import (
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpHello, typed(opHello))

func opHello(c *call, _ wire.HelloArgs) (*wire.HelloAnswer, error) {
	return &wire.HelloAnswer{Daemon: daemonInfo(c)}, nil
}

var _ = register(wire.OpAttach, typed(opAttach))

func opAttach(c *call, _ wire.AttachArgs) (*wire.AttachAnswer, error) {
	return &wire.AttachAnswer{Daemon: daemonInfo(c)}, nil
}

// daemonInfo answers hello and attach; the attachment was made from the
// request's envelope before dispatch.
func daemonInfo(c *call) *wire.DaemonInfo {
	return &wire.DaemonInfo{Version: Version, Protocol: wire.ProtocolVersion, ID: c.d.cfg.ID, PID: os.Getpid(),
		Attachment: c.att.name, Role: c.att.grant.Role, Caps: c.att.grant.List()}
}

var _ = register(wire.OpPing, typed(opPing))

func opPing(c *call, _ wire.PingArgs) (*wire.PingAnswer, error) { return &wire.PingAnswer{}, nil }

var _ = register(wire.OpShutdown, typed(opShutdown))

func opShutdown(c *call, _ wire.ShutdownArgs) (*wire.ShutdownAnswer, error) {
	go c.d.Shutdown()
	return &wire.ShutdownAnswer{}, nil
}

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
		if term, err := l.terminal(); err == nil {
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

func (l *Limb) summary(a *attachment) wire.LimbSummary {
	o := l.observe(a)
	caps := listed(l.core.cfg.Ops, l.kind, o.Perceive) // the ops registered as listedOn…
	return wire.LimbSummary{LimbID: l.id, Protocol: o.Protocol, Address: o.Address, Port: o.Port, Slot: o.Slot,
		State: o.State, Width: o.Size.W, Height: o.Size.H, Caps: caps, Lease: o.Lease}
}

var _ = register(wire.OpLimbs, typed(opLimbs))

func opLimbs(c *call, _ wire.LimbsArgs) (*wire.LimbsAnswer, error) {
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

func opOpen(c *call, a wire.OpenArgs) (*wire.OpenAnswer, error) {
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

// targetFor builds a dial target from open's arguments (an address and
// protocol, or a saved host whose credential is read inside dvvd).
func (d *Daemon) targetFor(req wire.OpenArgs) (limb.Target, error) {
	var t limb.Target
	if req.Slot != nil { // at least 0, by the spec
		t.Slot = *req.Slot
	}
	t.Perceive = req.Perceive != nil && *req.Perceive
	var err error
	if req.HostID != "" {
		t, err = d.savedTarget(req, t)
	} else {
		t, err = addressTarget(req, t)
	}
	if err != nil {
		return t, err
	}
	if req.Machine != "" {
		sp, err := machine.Parse(req.Machine)
		if err != nil {
			return t, err
		}
		t.Machine = sp.String()
	}
	proto, known := wire.Protocol(t.Protocol)
	if !known {
		return t, wire.Errorf(wire.BadRequest, "protocol %q is not one of %s", t.Protocol, wire.ProtocolChoice())
	}
	// The port is made explicit before the limb id is derived, so an open
	// with and without the default port is one endpoint. An SSH address
	// may be a ~/.ssh/config alias with a Port of its own: the terminal
	// client says which port it would dial.
	if t.Port == 0 && !strings.Contains(t.Address, "://") {
		t.Port = d.defaultPort(proto, t.Address)
	}
	if t.Port < 0 || t.Port > 65535 {
		return t, wire.Errorf(wire.BadRequest, "port %d is out of range", t.Port)
	}
	if !proto.Slots && t.Slot > 0 {
		return t, wire.Errorf(wire.SlotRefused, "%s shares one session per server; open with slot 0", strings.ToUpper(t.Protocol))
	}
	return t, nil
}

// savedTarget is the saved host's target, with the request's slot,
// perceive and port; the protocol and address are the host's alone.
func (d *Daemon) savedTarget(req wire.OpenArgs, t limb.Target) (limb.Target, error) {
	if req.Protocol != "" {
		return t, wire.Errorf(wire.BadRequest, "protocol comes from the saved host; do not pass it beside hostId")
	}
	if req.Address != "" {
		return t, wire.Errorf(wire.BadRequest, "pass hostId or address, not both")
	}
	ht, err := d.hostTargetWith(req.HostID, req.Password)
	if err != nil {
		return t, err
	}
	ht.Slot, ht.Perceive = t.Slot, t.Perceive || ht.Record && wire.KindOf(ht.Protocol) == kindDesktop // a recorded desktop needs its mirror
	if req.Port != nil {
		ht.Port = *req.Port
	}
	return ht, nil
}

// addressTarget is the target an address and protocol name.
func addressTarget(req wire.OpenArgs, t limb.Target) (limb.Target, error) {
	if req.Address == "" {
		return t, wire.Errorf(wire.BadRequest, "open needs hostId, or address with protocol")
	}
	if req.Protocol == "" {
		return t, wire.Errorf(wire.BadRequest, "protocol (%s) is required with address", wire.ProtocolChoice())
	}
	t.Protocol, t.Address = req.Protocol, req.Address
	if req.Port != nil {
		t.Port = *req.Port
	}
	if err := splitAddress(&t); err != nil {
		return t, err
	}
	// Held only in the limb's target (memory), for its reconnects.
	t.Password = req.Password
	return t, nil
}

func (d *Daemon) attachLimb(a *attachment, l *Limb) {
	d.mu.Lock()
	a.limbs[l.id] = true
	d.mu.Unlock()
}

// resolve finds the limb a selector names by limbId, or groupId + member.
// Naming an available limb attaches it.
func (d *Daemon) resolve(a *attachment, req wire.Target) (*Limb, error) {
	id := req.LimbID
	switch {
	case id != "" && (req.GroupID != "" || req.Member != nil):
		return nil, wire.Errorf(wire.BadRequest, "pass limbId, or groupId with member, not both")
	case id == "" && req.GroupID != "":
		if req.Member == nil {
			return nil, wire.Errorf(wire.BadRequest, "groupId needs member (the member's index)")
		}
		var err error
		if id, err = d.groupMember(req.GroupID, *req.Member); err != nil {
			return nil, err
		}
	case id == "" && req.Member != nil:
		return nil, wire.Errorf(wire.BadRequest, "member needs groupId")
	case id == "":
		return nil, wire.Errorf(wire.BadRequest, "limbId (or groupId with member) is required")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.limbs[id]
	if l == nil {
		return nil, wire.Errorf(wire.LimbGone, "no limb %q; call limbs for the current ids", id)
	}
	a.limbs[id] = true
	return l, nil
}

var _ = register(wire.OpClose, typed(opClose), goneIsDone)

func opClose(c *call, _ wire.CloseArgs) (*wire.CloseAnswer, error) {
	if l := c.l; l != nil {
		if err := l.checkPersonHold(c.att, "close"); err != nil {
			return nil, err
		}
		c.d.closeLimb(l)
	}
	return &wire.CloseAnswer{}, nil
}

var _ = register(wire.OpStatus, typed(opStatus), listedOnDesktops, listedOnTerminals)

func opStatus(c *call, _ wire.StatusArgs) (*wire.StatusAnswer, error) {
	l := c.l
	r := &wire.StatusAnswer{}
	r.Observation = l.observe(c.att)
	return r, nil
}

var _ = register(wire.OpSignals, typed(opSignals), listedOnDesktops, listedOnTerminals)

func opSignals(c *call, _ wire.SignalsArgs) (*wire.SignalsAnswer, error) {
	l := c.l
	r := &wire.SignalsAnswer{}
	r.Signals = l.observe(c.att).Signals
	l.probeStructure(c.ctx, r.Signals)
	return r, nil
}

var _ = register(wire.OpReconnect, typed(opReconnect))

func opReconnect(c *call, a wire.ReconnectArgs) (*wire.ReconnectAnswer, error) {
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

func opHistory(c *call, _ wire.HistoryArgs) (*wire.HistoryAnswer, error) {
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
