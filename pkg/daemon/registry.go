package daemon

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

// defaultPort is the port an address given without one is dialled on: the
// one a terminal client would dial (an ssh_config alias may name its own
// Port), else the protocol's default.
func (d *Daemon) defaultPort(p *wire.ProtocolSpec, address string) int {
	if p.Kind == kindTerminal && d.cfg.TerminalPort != nil {
		return d.cfg.TerminalPort(address)
	}
	return p.DefaultPort
}

// openLimb returns the limb for a target, starting it when it is new. It
// returns as soon as the session task runs.
func (d *Daemon) openLimb(t limb.Target) (*Limb, error) {
	kind := kindDesktop
	if p, ok := wire.Protocol(t.Protocol); ok {
		kind = p.Kind
	}
	switch {
	case kind == kindTerminal && d.cfg.Terminal == nil,
		kind == kindDesktop && d.cfg.Desktop[t.Protocol] == nil:
		return nil, wire.Errorf(wire.Unsupported, "this dvvd was built without %s support", t.Protocol)
	}
	id := LimbID(t.Protocol, t.Address, t.Port, t.Slot)
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return nil, wire.Errorf(wire.NotReady, "dvvd is shutting down")
	}
	if l := d.limbs[id]; l != nil {
		d.mu.Unlock()
		if err := l.rejoin(t); err != nil {
			return nil, err
		}
		return l, nil
	}
	defer d.mu.Unlock()
	ctx, cancel := context.WithCancel(d.ctx)
	l := &Limb{core: &d.core, id: id, target: t, kind: kind, state: wire.StateConnecting, stateCh: make(chan struct{}),
		perceive: t.Perceive, redial: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel, exited: make(chan struct{})}
	// actCtx is a child of ctx so close can withdraw in-flight intents
	// (and let them settle) before it ends the session under them.
	l.actCtx, l.actCancel = context.WithCancel(ctx)
	if kind == kindTerminal {
		l.tty = &terminalLimb{l: l, dialer: d.cfg.Terminal}
		l.part = l.tty
	} else {
		l.dsk = newDesktopLimb(l, d.cfg.Desktop[t.Protocol], d.cfg.MaxFramebufferPixels)
		l.part = l.dsk
	}
	d.limbs[id] = l
	go l.run()
	d.log.Info("limb opened", "limb", id, "protocol", t.Protocol, "address", t.Address, "port", t.Port, "slot", t.Slot)
	return l, nil
}

// closeLimb closes l and forgets it: the registry and every attachment
// let go of it before its closing is announced. Idempotent.
func (d *Daemon) closeLimb(l *Limb) {
	l.close()
	d.mu.Lock()
	if d.limbs[l.id] == l {
		delete(d.limbs, l.id)
	}
	for _, a := range d.attachments {
		delete(a.limbs, l.id)
	}
	d.mu.Unlock()
	d.events.publish(&wire.Event{Kind: "limb.state", LimbID: l.id, Detail: wire.StateClosed})
	d.log.Info("limb closed", "limb", l.id)
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

func (d *Daemon) allLimbs() []*Limb {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*Limb, 0, len(d.limbs))
	for _, l := range d.limbs {
		out = append(out, l)
	}
	return out
}

func (d *Daemon) groupMember(gid string, member int) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	g := d.groups[gid]
	if g == nil {
		return "", wire.Errorf(wire.LimbGone, "no group %q; call group_list for the open groups", gid)
	}
	if member < 0 || member >= len(g.members) {
		return "", wire.Errorf(wire.LimbGone, "group %s has no member %d (it has %d, indexes 0..%d)", gid, member, len(g.members), len(g.members)-1)
	}
	return g.members[member].limbID, nil
}

func (d *Daemon) groupView(g *group) *wire.Group {
	out := &wire.Group{GroupID: g.id, Size: len(g.members), Members: []wire.GroupMember{}}
	d.mu.Lock()
	members := append([]groupMember(nil), g.members...)
	d.mu.Unlock()
	for i, m := range members {
		state := wire.StateClosed
		d.mu.Lock()
		l := d.limbs[m.limbID]
		d.mu.Unlock()
		if l != nil {
			state = l.stateName()
		}
		out.Members = append(out.Members, wire.GroupMember{Index: i, LimbID: m.limbID, Host: m.host, State: state})
	}
	return out
}

func (d *Daemon) group(gid string) (*group, error) {
	if gid == "" {
		return nil, wire.Errorf(wire.BadRequest, "groupId is required")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	g := d.groups[gid]
	if g == nil {
		return nil, wire.Errorf(wire.NotFound, "no group %q; call group_list for the open groups", gid)
	}
	return g, nil
}

// checkMembersFree refuses a group change that would close a member a
// person holds (see Limb.checkPersonHold).
func (d *Daemon) checkMembersFree(a *attachment, ms []groupMember, op string) error {
	for _, m := range ms {
		d.mu.Lock()
		l := d.limbs[m.limbID]
		d.mu.Unlock()
		if l == nil {
			continue
		}
		if err := l.checkPersonHold(a, op); err != nil {
			return err
		}
	}
	return nil
}

// closeMembers closes the members' limbs concurrently, except a limb that
// is still in use elsewhere: a member of another group, or attached by
// another client. It returns the kept limbs with the reason. A member
// already gone is fine.
func (d *Daemon) closeMembers(ms []groupMember, by *attachment) map[string]string {
	kept := map[string]string{}
	var wg sync.WaitGroup
	for _, m := range ms {
		d.mu.Lock()
		l := d.limbs[m.limbID]
		why := d.usedElsewhereLocked(m.limbID, by)
		d.mu.Unlock()
		if l == nil {
			continue
		}
		if why != "" {
			kept[m.limbID] = why
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); d.closeLimb(l) }()
	}
	wg.Wait()
	return kept
}

// usedElsewhereLocked says why a limb is still in use beyond the caller's
// group (closed or shrunk, and already out of d.groups), or "".
func (d *Daemon) usedElsewhereLocked(id string, by *attachment) string {
	var in []string
	for gid, g := range d.groups {
		for _, m := range g.members {
			if m.limbID == id {
				in = append(in, gid)
				break
			}
		}
	}
	if len(in) > 0 {
		sort.Strings(in)
		return "still a member of group " + strings.Join(in, ", ")
	}
	var names []string
	for _, a := range d.attachments {
		if a != by && a.limbs[id] {
			names = append(names, a.name)
		}
	}
	if len(names) > 0 {
		sort.Strings(names)
		return "attached by another client (" + strings.Join(names, ", ") + ")"
	}
	return ""
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
