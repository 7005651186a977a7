package daemon

import (
	"bytes"
	"context"
	"encoding/json"
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

// group is an ordered set of limbs addressed together.
type group struct {
	id      string
	members []groupMember
}

type groupMember struct {
	limbID string
	host   string
}

// groupOpenWait bounds how long group_open waits for every member's first
// connection attempt.
const groupOpenWait = 20 * time.Second

// groupRunInlineMax bounds the inline image bytes of one group_run screen
// answer; beyond it the agent is told to scale down or use outDir.
const groupRunInlineMax = 48 << 20

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

// openMembers opens limbs for hostIds and addresses and waits for each
// one's first connection attempt. On any failure, the limbs this call
// created are closed again and the error names the failing member.
// group_open and group_grow take the same member fields.
func (c *call) openMembers(hostIDs, addresses []string, protocol string, perceiveArg *bool) ([]groupMember, error) {
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

func opGroupOpen(c *call, a wire.GroupOpenArgs) (*wire.GroupOpenAnswer, error) {
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

var _ = register(wire.OpGroupList, typed(opGroupList))

func opGroupList(c *call, a wire.GroupListArgs) (*wire.GroupListAnswer, error) {
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

func opGroupGrow(c *call, a wire.GroupGrowArgs) (*wire.GroupGrowAnswer, error) {
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

func opGroupShrink(c *call, a wire.GroupShrinkArgs) (*wire.GroupShrinkAnswer, error) {
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

func opGroupClose(c *call, a wire.GroupCloseArgs) (*wire.GroupCloseAnswer, error) {
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

var _ = register(wire.OpGroupRun, typed(opGroupRun))

// opGroupRun runs one action on every member concurrently. Every member
// starts (its op.start event is published) before any member's action runs,
// and one member failing never stops the others.
//
// The member requests are flat: arguments are decoded as a request of the
// inner op (strictly, unknown fields refused) and each goes through
// dispatch again, so the inner op's spec checks, policy, kind and history
// apply per member as if it had been sent on its own.
func opGroupRun(c *call, a wire.GroupRunArgs) (*wire.GroupRunAnswer, error) {
	g, err := c.d.group(a.GroupID)
	if err != nil {
		return nil, err
	}
	action := a.Action // one of the spec's variants
	inner, ok := c.d.cfg.Ops.Spec(action)
	if !ok {
		return nil, wire.Errorf(wire.BadRequest, "group_run cannot run %q", action)
	}
	// Each member gets its own Args, decoded from the arguments as a line
	// of the inner op would be; this first decode refuses bad arguments
	// once for all.
	decode := func() (wire.Enveloped, error) { return memberArgs(inner, a.Arguments) }
	if err := checkMemberArgs(decode); err != nil {
		return nil, err
	}
	outDir := a.OutDir
	if err := checkOutDir(action, outDir); err != nil {
		return nil, err
	}
	c.d.mu.Lock()
	members := append([]groupMember(nil), g.members...)
	c.d.mu.Unlock()

	results := make([]wire.MemberResult, len(members))
	replies := make([]reply, len(members))
	start := newStartBarrier(len(members))
	var finished sync.WaitGroup
	finished.Add(len(members))
	for i, m := range members {
		args, _ := decode() // decoded once already: the same bytes decode again
		args.Head().OpName = action
		if t, ok := args.(interface{ Aim(string) }); ok {
			t.Aim(m.limbID) // every op group_run runs takes the selector
		}
		if s, ok := args.(*wire.ScreenArgs); ok && outDir != "" {
			s.Out = filepath.Join(outDir, fmt.Sprintf("%03d-%s.%s", i, m.limbID, map[bool]string{true: "jpg", false: "png"}[s.Format == "jpeg"])) // auto: the format chosen names the file
		}
		go func() {
			defer finished.Done()
			req := &request{Envelope: *args.Head(), args: args}
			replies[i] = c.d.dispatchReady(c.ctx, c.c, c.att, req, start.arrive())
		}()
	}
	finished.Wait()
	inline := 0
	for i, r := range replies {
		if s, ok := r.ans.(*wire.ScreenAnswer); ok && s.Screen != nil {
			inline += len(s.Screen.DataBase64)
		}
		results[i] = wire.MemberResult{Index: i, LimbID: members[i].limbID, Response: r.line()}
	}
	if inline > groupRunInlineMax {
		return nil, wire.Errorf(wire.TooLarge, "the %d screens come to %d bytes inline (limit %d); pass arguments {scale: 0.25} or use outDir to have them written to files", len(results), inline, groupRunInlineMax)
	}
	r := &wire.GroupRunAnswer{}
	r.Members = results
	return r, nil
}

// memberArgs decodes group_run's arguments as the inner op's Args, as a
// line of that op would be.
func memberArgs(inner *wire.OpSpec, arguments json.RawMessage) (wire.Enveloped, error) {
	raw := bytes.TrimSpace(arguments)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	args, werr := inner.DecodeLine(raw)
	if werr != nil {
		return nil, wire.Errorf(wire.BadRequest, "arguments must be the %s tool's arguments as an object: %s", inner.Name, werr.Message)
	}
	return args, nil
}

// checkMemberArgs refuses arguments that decode badly, or that carry an
// envelope or a selector: group_run names the members itself.
func checkMemberArgs(decode func() (wire.Enveloped, error)) error {
	probe, err := decode()
	if err != nil {
		return err
	}
	if env := probe.Head(); env.OpName != "" || env.ID != nil || env.Name != "" || env.Token != "" || env.Session != "" ||
		wire.SelectionOf(probe) != (wire.Target{}) {
		return wire.Errorf(wire.BadRequest, "arguments take the tool's arguments minus the selector (limbId, groupId, member)")
	}
	return nil
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

// startBarrier holds group_run's members until every member is ready
// to act, so they act at the same moment (the point of group_run); a
// member refused before it acts arrives too, or the others would wait
// for it forever.
type startBarrier struct{ wg sync.WaitGroup }

func newStartBarrier(n int) *startBarrier {
	b := &startBarrier{}
	b.wg.Add(n)
	return b
}

// arrive is one member's ready for dispatchReady: the first call counts
// the member in and waits for the rest; a second call does nothing.
func (b *startBarrier) arrive() func() {
	return sync.OnceFunc(func() {
		b.wg.Done()
		b.wg.Wait()
	})
}
