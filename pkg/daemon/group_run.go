package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpGroupRun, typed(opGroupRun))

// opGroupRun runs one action on every member concurrently. Every member
// starts (its op.start event is published) before any member's action runs,
// and one member failing never stops the others.
//
// The member requests are flat: arguments are decoded as a request of the
// inner op (strictly, unknown fields refused) and each goes through
// dispatch again, so the inner op's spec checks, policy, kind and history
// apply per member as if it had been sent on its own.
func opGroupRun(c *opCall, a wire.GroupRunArgs) (*wire.GroupRunAnswer, error) {
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
