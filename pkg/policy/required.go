package policy

import (
	"encoding/json"

	"github.com/dvvhq/dvv/pkg/wire"
)

// unknownOp is what an op missing from the table needs: the strongest
// bundled capability, so a new op is never open by accident. The daemon
// answers unknown ops BAD_REQUEST before asking policy.
var unknownOp = caps(DaemonAdmin)

func caps(c ...Capability) []Capability { return c }

func toCaps(names []string) []Capability {
	out := make([]Capability, len(names))
	for i, n := range names {
		out[i] = Capability(n)
	}
	return out
}

// table is the op table policy reads: t, or dvv's own when t is nil.
func table(t *wire.Table) *wire.Table {
	if t == nil {
		return wire.Builtin()
	}
	return t
}

// Required returns the capabilities an op with an action needs, as its spec
// in the op table t states them (nil: dvv's own). An action the spec does not name needs every
// capability the op can need (dvvd refuses such actions as BAD_REQUEST;
// this only makes sure policy never allows more). It does not see request
// fields that name local paths; RequiredFor does.
func Required(t *wire.Table, op string, action string) []Capability {
	s, ok := table(t).Spec(op)
	if !ok {
		return append([]Capability{}, unknownOp...)
	}
	if s.FansOut {
		return RequiredForGroupRun(t, action)
	}
	if s.ActionCaps == nil {
		return toCaps(s.Caps)
	}
	if c, ok := s.ActionCaps[action]; ok {
		return toCaps(c)
	}
	return toCaps(s.AllCaps())
}

// RequiredForGroupRun is what group_run with this action needs: exactly what
// the single-limb op of that name needs. A group_run cannot launder a
// capability.
func RequiredForGroupRun(t *wire.Table, action string) []Capability {
	if action == "" || fansOut(t, action) {
		return append([]Capability{}, unknownOp...)
	}
	return Required(t, action, "")
}

// fansOut reports whether op runs another op on a group's members
// (group_run): such an op inside another is refused, and asks the most.
func fansOut(t *wire.Table, op string) bool {
	s, ok := table(t).Spec(op)
	return ok && s.FansOut
}

// RequiredFor returns what a whole request needs: its op and action, plus
// local.files when it names a path on dvvd's own machine, plus, for
// group_run, what its inner arguments need.
func RequiredFor(t *wire.Table, req *wire.Request) []Capability {
	if req == nil {
		return append([]Capability{}, unknownOp...)
	}
	var need []Capability
	if fansOut(t, req.Op) {
		inner := wire.Request{}
		if len(req.Arguments) > 0 {
			if err := json.Unmarshal(req.Arguments, &inner); err != nil {
				// The daemon refuses malformed arguments; policy asks the most.
				return append([]Capability{}, unknownOp...)
			}
		}
		inner.Op = req.Action
		if inner.Op == "" || fansOut(t, inner.Op) {
			return append([]Capability{}, unknownOp...)
		}
		need = RequiredFor(t, &inner)
		if namesLocalPath(t, req) {
			need = addCap(need, LocalFiles)
		}
		return need
	}
	need = Required(t, req.Op, req.Action)
	if namesLocalPath(t, req) {
		need = addCap(need, LocalFiles)
	}
	if req.Op == wire.OpOpen && req.HostID != "" && req.Port != nil {
		// A saved host's credential goes where the host says. Sending it to
		// another port is changing the host.
		need = addCap(need, HostsWrite)
	}
	return need
}

// TerminalInput is what type and key need on a terminal limb, where they
// are the same as term_send: keystrokes into a shell run commands.
var TerminalInput = []Capability{Control, Exec}

// namesLocalPath reports whether a request reads or writes a file on the
// machine dvvd runs on: it carries a field its op's Args tag
// `dvv:"localpath"` (for its variant, when the tag names some).
func namesLocalPath(t *wire.Table, req *wire.Request) bool {
	s, ok := table(t).Spec(req.Op)
	if !ok {
		return false
	}
	variant := s.VariantOf(req)
	for _, p := range wire.LocalPaths(s.Args) {
		if p.In(variant) && req.Has(p.Field) {
			return true
		}
	}
	return false
}

func addCap(cs []Capability, c Capability) []Capability {
	for _, x := range cs {
		if x == c {
			return cs
		}
	}
	return append(cs, c)
}
