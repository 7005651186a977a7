package policy

import (
	"encoding/json"
	"reflect"

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
// group_run, what its inner arguments need. m is the request: the op's
// Args as dvvd decoded them (a pointer) or as a client builds them.
func RequiredFor(t *wire.Table, m wire.Args) []Capability {
	if isNil(m) {
		return append([]Capability{}, unknownOp...)
	}
	op, action := m.Op(), wire.GistOf(m).Action
	var need []Capability
	if fansOut(t, op) {
		inner := action
		if inner == "" || fansOut(t, inner) {
			return append([]Capability{}, unknownOp...)
		}
		args, ok := innerArgs(t, inner, m)
		if !ok {
			// The daemon refuses malformed arguments; policy asks the most.
			return append([]Capability{}, unknownOp...)
		}
		need = RequiredFor(t, args)
		if namesLocalPath(t, op, m) {
			need = addCap(need, LocalFiles)
		}
		return need
	}
	need = Required(t, op, action)
	if namesLocalPath(t, op, m) {
		need = addCap(need, LocalFiles)
	}
	if op == wire.OpOpen && savedHostElsewhere(m) {
		// A saved host's credential goes where the host says. Sending it to
		// another port is changing the host.
		need = addCap(need, HostsWrite)
	}
	return need
}

// innerArgs reads a fan-out's arguments as a request of its inner op, into
// that op's Args; not ok for an op the table lacks (which then asks the
// most) or arguments that do not decode.
func innerArgs(t *wire.Table, op string, m wire.Args) (wire.Args, bool) {
	raw := wire.GistOf(m).Arguments
	s, ok := table(t).Spec(op)
	if !ok || s.Args == nil {
		return nil, false
	}
	a, ok := reflect.New(s.Args).Interface().(wire.Args)
	if !ok || len(raw) > 0 && json.Unmarshal(raw, a) != nil {
		return nil, false
	}
	return a, true
}

// isNil reports a missing request: nil, or a nil pointer to Args.
func isNil(m wire.Args) bool {
	if m == nil {
		return true
	}
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// savedHostElsewhere reports whether an open names a saved host and a
// port of its own.
func savedHostElsewhere(m wire.Args) bool {
	switch m := m.(type) {
	case *wire.OpenArgs:
		return m.HostID != "" && m.Port != nil
	case wire.OpenArgs:
		return m.HostID != "" && m.Port != nil
	}
	return false
}

// TerminalInput is what type and key need on a terminal limb, where they
// are the same as term_send: keystrokes into a shell run commands.
var TerminalInput = []Capability{Control, Exec}

// namesLocalPath reports whether a request reads or writes a file on the
// machine dvvd runs on: it carries a field its op's Args tag
// `dvv:"localpath"` (for its variant, when the tag names some).
func namesLocalPath(t *wire.Table, op string, m wire.Args) bool {
	s, ok := table(t).Spec(op)
	if !ok {
		return false
	}
	variant := s.VariantOf(m)
	for _, p := range wire.LocalPaths(s.Args) {
		if p.In(variant) && wire.Has(m, p.Field) {
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
