package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/wire"
)

// groupOpenWait bounds how long group_open waits for every member's first
// connection attempt.
const groupOpenWait = 20 * time.Second

// groupRunInlineMax bounds the inline image bytes of one group_run screen
// answer; beyond it the agent is told to scale down or use outDir.
const groupRunInlineMax = 48 << 20

// openMembers opens limbs for hostIds and addresses and waits for each
// one's first connection attempt. On any failure, the limbs this call
// created are closed again and the error names the failing member.
// group_open and group_grow take the same member fields.
func (c *opCall) openMembers(hostIDs, addresses []string, protocol string, perceiveArg *bool) ([]groupMember, error) {
	d := c.d
	var targets []limb.Target
	var names []string
	perceive := perceiveArg != nil && *perceiveArg
	for _, id := range hostIDs {
		t, err := d.hostTarget(id)
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", id, err)
		}
		t.Perceive = perceive
		targets, names = append(targets, t), append(names, id)
	}
	if len(addresses) > 0 && protocol == "" {
		return nil, wire.Errorf(wire.BadRequest, "protocol is required with addresses")
	}
	for _, a := range addresses {
		// Taken apart as open's address is (HOST:PORT, and VNC's
		// HOST::PORT and HOST:DISPLAY).
		t, err := d.targetFor(wire.OpenArgs{Address: a, Protocol: protocol, Perceive: &perceive})
		if err != nil {
			return nil, err
		}
		targets, names = append(targets, t), append(names, a)
	}
	if len(targets) == 0 {
		return nil, wire.Errorf(wire.BadRequest, "give hostIds and/or addresses")
	}
	d.mu.Lock()
	existed := map[string]bool{}
	for _, t := range targets {
		id := LimbID(t.Protocol, t.Address, t.Port, t.Slot)
		existed[id] = d.limbs[id] != nil
	}
	d.mu.Unlock()

	limbs := make([]*Limb, len(targets))
	errs := make([]error, len(targets))
	// Members are dialled in parallel: a group of fifty machines should
	// take one connection's time, not fifty. Each goroutine writes only
	// its own index of limbs and errs.
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := d.openLimb(t)
			if err != nil {
				errs[i] = err
				return
			}
			limbs[i] = l
			l.adopt(t)
			errs[i] = l.firstAttempt(c.ctx, groupOpenWait)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			continue
		}
		// All or nothing, but only for what this call opened: a limb that
		// existed before belongs to someone else's work.
		for _, l := range limbs {
			if l != nil && !existed[l.id] {
				d.closeLimb(l)
			}
		}
		we := asWireError(err)
		return nil, &wire.Error{Code: we.Code, Message: fmt.Sprintf("member %d (%s) failed: %s; the members this call opened were closed again", i, names[i], we.Message), Next: we.Next}
	}
	out := make([]groupMember, len(limbs))
	for i, l := range limbs {
		d.attachLimb(c.att, l)
		out[i] = groupMember{limbID: l.id, host: names[i]}
	}
	return out, nil
}

// firstAttempt waits until the limb connected or a dial made since the call
// failed. The error a reconnecting limb already had is not that dial's: it
// waits for the next one.
func (l *Limb) firstAttempt(ctx context.Context, timeout time.Duration) error {
	deadline := time.After(timeout)
	l.mu.Lock()
	before := l.lastErr
	l.mu.Unlock()
	for {
		l.mu.Lock()
		st, le, ch := l.state, l.lastErr, l.stateCh
		l.mu.Unlock()
		if st == wire.StateConnected {
			return nil
		}
		if le != nil && (le != before || st == wire.StateFailed || st == wire.StateExited) {
			return &wire.Error{Code: le.Code, Message: le.Message, Next: le.Code.Info().Next}
		}
		select {
		case <-ch:
		case <-deadline:
			if before != nil {
				return wire.Errorf(wire.Timeout, "no connection within %v (the last try: %s)", timeout, before.Message)
			}
			return wire.Errorf(wire.Timeout, "no connection within %v", timeout)
		case <-ctx.Done():
			return wire.Errorf(wire.Timeout, "the client went away")
		}
	}
}

var _ = register(wire.OpGroupOpen, typed(opGroupOpen))

func opGroupOpen(c *opCall, a wire.GroupOpenArgs) (*wire.GroupOpenAnswer, error) {
	members, err := c.openMembers(a.HostIDs, a.Addresses, a.Protocol, a.Perceive)
	if err != nil {
		return nil, err
	}
	c.d.mu.Lock()
	c.d.nextGroup++
	g := &group{id: fmt.Sprintf("grp-%d", c.d.nextGroup), members: members}
	c.d.groups[g.id] = g
	c.d.mu.Unlock()
	r := &wire.GroupOpenAnswer{}
	r.Group = c.d.groupView(g)
	return r, nil
}

var _ = register(wire.OpGroupList, typed(opGroupList))

func opGroupList(c *opCall, a wire.GroupListArgs) (*wire.GroupListAnswer, error) {
	r := &wire.GroupListAnswer{}
	if a.GroupID != "" {
		g, err := c.d.group(a.GroupID)
		if err != nil {
			return nil, err
		}
		r.Group = c.d.groupView(g)
		return r, nil
	}
	c.d.mu.Lock()
	r.Groups = []wire.Group{}
	for _, g := range c.d.groups {
		r.Groups = append(r.Groups, wire.Group{GroupID: g.id, Size: len(g.members)})
	}
	c.d.mu.Unlock()
	sort.Slice(r.Groups, func(i, j int) bool { return r.Groups[i].GroupID < r.Groups[j].GroupID })
	return r, nil
}

var _ = register(wire.OpGroupGrow, typed(opGroupGrow))

func opGroupGrow(c *opCall, a wire.GroupGrowArgs) (*wire.GroupGrowAnswer, error) {
	g, err := c.d.group(a.GroupID)
	if err != nil {
		return nil, err
	}
	members, err := c.openMembers(a.HostIDs, a.Addresses, a.Protocol, a.Perceive)
	if err != nil {
		return nil, err
	}
	c.d.mu.Lock()
	g.members = append(g.members, members...)
	c.d.mu.Unlock()
	r := &wire.GroupGrowAnswer{}
	r.Group = c.d.groupView(g)
	return r, nil
}

var _ = register(wire.OpGroupShrnk, typed(opGroupShrink))

func opGroupShrink(c *opCall, a wire.GroupShrinkArgs) (*wire.GroupShrinkAnswer, error) {
	g, err := c.d.group(a.GroupID)
	if err != nil {
		return nil, err
	}
	n := a.N // required, at least 1
	c.d.mu.Lock()
	size := len(g.members)
	if n > size {
		c.d.mu.Unlock()
		return nil, wire.Errorf(wire.BadRequest, "group %s has %d members; shrinking by %d would close more than it holds (no clamping: use group_close to close all)", g.id, size, n)
	}
	gone := append([]groupMember(nil), g.members[size-n:]...)
	c.d.mu.Unlock()
	if err := c.d.checkMembersFree(c.att, gone, "group_shrink"); err != nil {
		return nil, err
	}
	c.d.mu.Lock()
	if len(g.members) != size {
		c.d.mu.Unlock()
		return nil, wire.Errorf(wire.Busy, "group %s changed during the shrink; nothing was closed", g.id)
	}
	g.members = g.members[:size-n]
	c.d.mu.Unlock()
	kept := c.d.closeMembers(gone, c.att)
	r := &wire.GroupShrinkAnswer{}
	r.Group = c.d.groupView(g)
	if len(kept) > 0 {
		var why []string
		for _, m := range gone {
			if k := kept[m.limbID]; k != "" {
				why = append(why, m.limbID+": "+k)
			}
		}
		r.Dispatched = fmt.Sprintf("%d removed member(s) kept open: %s", len(kept), strings.Join(why, "; "))
	}
	return r, nil
}

var _ = register(wire.OpGroupClose, typed(opGroupClose))

func opGroupClose(c *opCall, a wire.GroupCloseArgs) (*wire.GroupCloseAnswer, error) {
	g, err := c.d.group(a.GroupID)
	if err != nil {
		return nil, err
	}
	c.d.mu.Lock()
	members := append([]groupMember(nil), g.members...)
	c.d.mu.Unlock()
	if err := c.d.checkMembersFree(c.att, members, "group_close"); err != nil {
		return nil, err
	}
	c.d.mu.Lock()
	delete(c.d.groups, g.id)
	members = g.members
	c.d.mu.Unlock()
	kept := c.d.closeMembers(members, c.att)
	r := &wire.GroupCloseAnswer{}
	r.Group = c.d.groupView(g)
	for i := range r.Group.Members {
		r.Group.Members[i].Kept = kept[r.Group.Members[i].LimbID]
	}
	if len(kept) > 0 {
		r.Dispatched = fmt.Sprintf("group closed; %d member(s) kept open because they are still in use (see group.members[].kept)", len(kept))
	}
	return r, nil
}

// checkOutDir: outDir, for screen only, is an absolute directory of the
// user's own.
func checkOutDir(action, outDir string) error {
	if outDir == "" {
		return nil
	}
	if action != "screen" || !filepath.IsAbs(outDir) {
		return wire.Errorf(wire.BadRequest, "outDir is an absolute directory, for action screen only")
	}
	if err := localfile.OwnDir(outDir); err != nil {
		return wire.Errorf(wire.BadRequest, "outDir: %v", err)
	}
	return nil
}
