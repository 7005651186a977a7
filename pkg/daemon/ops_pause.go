package daemon

import (
	"sort"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Pausing is a person stopping every agent's input on a limb, or on every
// limb, without driving it themselves: until they resume, an agent's act
// answers LEASE_REVOKED and observations show human_took_over, as when a
// person took over. In-flight acts are withdrawn at once.

var _ = register(wire.OpPause, typed(opPause))

// opPause: action pause or resume, for the limb named or (all) every limb.
// resume without a limb resumes everything.
func opPause(c *opCall, a wire.PauseArgs) (*wire.PauseAnswer, error) {
	d := c.d
	if a.All && (a.LimbID != "" || a.GroupID != "") {
		return nil, wire.Errorf(wire.BadRequest, "pass a limb or all, not both")
	}
	var target *Limb
	if a.LimbID != "" || a.GroupID != "" {
		l, err := d.resolve(c.att, a.Target)
		if err != nil {
			return nil, err
		}
		target = l
	}
	r := &wire.PauseAnswer{}
	switch a.Action {
	case "pause":
		if target == nil && !a.All {
			return nil, wire.Errorf(wire.BadRequest, "pause needs a limb, or all to pause every limb")
		}
		d.pause(target, a.All)
		r.Dispatched = "agent input paused"
	case "resume":
		d.resume(target)
		r.Dispatched = "agent input resumed"
		if target != nil && d.pausedAll.Load() {
			r.Dispatched = "this limb's own pause is lifted, but every limb is still paused (resume without a limb lifts that)"
		}
	}
	r.Paused = d.pauseView()
	return r, nil
}

// pause stops agents' input on target, or on every limb (all, which also
// holds limbs opened later), withdrawing the acts under way.
func (d *Daemon) pause(target *Limb, all bool) {
	if all {
		d.pausedAll.Store(true)
	}
	for _, l := range d.allLimbs() {
		if l != target && !all {
			continue
		}
		l.mu.Lock()
		l.paused = l.paused || l == target
		l.withdrawActsLocked()
		l.mu.Unlock()
		d.events.publish(&wire.Event{Kind: "lease", LimbID: l.id, Detail: "agent input paused by a person"})
	}
}

// resume lifts target's own pause, or without a target every pause.
func (d *Daemon) resume(target *Limb) {
	if target == nil {
		d.pausedAll.Store(false)
	}
	for _, l := range d.allLimbs() {
		if target != nil && l != target {
			continue
		}
		l.mu.Lock()
		l.paused = false
		l.mu.Unlock()
		d.events.publish(&wire.Event{Kind: "lease", LimbID: l.id, Detail: "agent input resumed"})
	}
}

func (d *Daemon) pauseView() *wire.PauseResult {
	v := &wire.PauseResult{All: d.pausedAll.Load()}
	for _, l := range d.allLimbs() {
		l.mu.Lock()
		if l.paused {
			v.Limbs = append(v.Limbs, l.id)
		}
		l.mu.Unlock()
	}
	sort.Strings(v.Limbs)
	return v
}

var _ = register(wire.OpHandback, typed(opHandback))

// opHandback ends a person's hold on a limb (taken over from the CLI, a
// VNC viewer or the browser): agents may acquire the lease again. A pause
// stays until resumed.
func opHandback(c *opCall, a wire.HandbackArgs) (*wire.HandbackAnswer, error) {
	l := c.l
	r := &wire.HandbackAnswer{}
	l.mu.Lock()
	if l.lease.human && l.lease.holder != nil {
		l.freeLocked("handed back by a person")
		r.Dispatched = "control handed back; agents may acquire the lease"
	} else {
		r.Dispatched = "no person held this limb; nothing to hand back"
	}
	l.mu.Unlock()
	lv := l.leaseView(c.att)
	r.Lease = &lv
	return r, nil
}
