package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/dvvhq/dvv/pkg/wire"
)

// opCall is one request being served.
type opCall struct {
	d   *Daemon
	c   *conn // nil inside group_run fan-out and tests
	att *attachment
	req *request
	ctx context.Context
	l   *Limb // the limb a limb op named, resolved before the handler runs
}

// handler serves one op. typed builds it from a function of the op's
// Args, so the function reads only the fields its op takes, already checked
// against the spec (presence, bounds, variants) by dispatch.
type handler struct {
	args   reflect.Type // the op's wire.*Args; checked against its spec at start-up
	answer reflect.Type // the op's wire.*Answer, likewise
	serve  func(*opCall) (wire.Answer, error)
	traits trait // what dvvd's own work needs to know of the op (register)
}

// typed registers fn for the op whose Args is A and whose answer is R
// (*wire.ClickAnswer, …): fn fills only the fields its op declares, and
// typed turns the answer into its line. The request has passed its spec's
// Check in dispatch; the required fields are checked here, last, so a
// wrong limb kind or a missing limb is answered first.
func typed[A wire.Args, R wire.Answer](fn func(*opCall, A) (R, error)) handler {
	answer := reflect.TypeFor[R]()
	if answer.Kind() == reflect.Pointer {
		answer = answer.Elem()
	}
	return handler{args: reflect.TypeFor[A](), answer: answer, serve: func(c *opCall) (wire.Answer, error) {
		if spec, ok := c.d.cfg.Ops.Spec(c.req.OpName); ok {
			if err := spec.CheckRequired(c.req.args); err != nil {
				return nil, err
			}
		}
		a, ok := any(c.req.args).(*A)
		if !ok {
			return nil, wire.Errorf(wire.Internal, "op %s was decoded as %T, its handler takes %T", c.req.OpName, c.req.args, a)
		}
		r, err := fn(c, *a)
		if err != nil {
			return nil, err
		}
		var none R
		if any(r) == any(none) { // a nil answer is a bare success
			return reflect.New(answer).Interface().(wire.Answer), nil
		}
		return r, nil
	}}
}

// byKind serves an op that applies to any limb but does different work on
// a desktop and on a terminal (type, key, screen). Dispatch has resolved
// the limb; each half is written for its kind alone and branches on none.
func byKind(desktop, terminal handler) handler {
	if desktop.args != terminal.args || desktop.answer != terminal.answer {
		panic(fmt.Sprintf("byKind: the desktop half is %v → %v, the terminal half %v → %v", desktop.args, desktop.answer, terminal.args, terminal.answer))
	}
	return handler{args: desktop.args, answer: desktop.answer, serve: func(c *opCall) (wire.Answer, error) {
		if c.l != nil && c.l.tty != nil {
			return terminal.serve(c)
		}
		return desktop.serve(c)
	}}
}

// handlers holds one handler per op of wire.Ops; what an op is (limb op,
// inline, capabilities, fields, codes) lives in its spec, not here. It is
// filled in init because group_run's handler dispatches again.
var handlers map[string]handler

func init() { handlers = builtinHandlers() }

func builtinHandlers() map[string]handler { return maps.Clone(registered) }

// registered are the handlers dvv's own ops register from their own files
// (`var _ = register(wire.OpFoo, typed(opFoo), brief, recorded)` beside
// opFoo, with the op's traits), so a new op needs no edit here. Package
// variables are set before init runs.
var registered = map[string]handler{}

// register adds op's handler and its traits; a second handler for one op
// is a bug.
func register(op string, h handler, traits ...trait) bool {
	if _, dup := registered[op]; dup {
		panic("daemon: two handlers for op " + op)
	}
	for _, t := range traits {
		h.traits |= t
	}
	registered[op] = h
	return true
}

// checkHandlers makes a spec without a handler, or a handler without a
// spec, a start-up failure rather than an op that answers "unknown".
func checkHandlers(ops *wire.Table) error {
	for _, s := range ops.Ops() {
		h, ok := handlers[s.Name]
		if !ok || h.serve == nil {
			return fmt.Errorf("op %q is specified in pkg/wire but dvvd has no handler for it", s.Name)
		}
		if h.args != s.Args {
			return fmt.Errorf("op %q's handler takes %v, its spec names %v", s.Name, h.args, s.Args)
		}
		if h.answer != s.AnswerType {
			return fmt.Errorf("op %q's handler answers %v, its spec names %v", s.Name, h.answer, s.AnswerType)
		}
	}
	for name := range handlers {
		if _, ok := ops.Spec(name); !ok {
			return fmt.Errorf("dvvd has a handler for %q but pkg/wire does not specify it", name)
		}
	}
	return nil
}

// requestID is the request's id (none inside group_run or for dvvd's own
// calls): files tags its progress lines with it.
func (c *opCall) requestID() json.RawMessage {
	if c.req == nil {
		return nil
	}
	return c.req.ID
}

// hasTrait reports whether the handler's op has trait t.
func (h handler) hasTrait(t trait) bool { return h.traits&t != 0 }

// listed names the ops of table a limb of this kind offers, in table
// order, as its summary lists them; perceive is whether a desktop limb
// reads its picture.
func listed(table *wire.Table, kind string, perceive bool) []string {
	want := listedOnDesktops
	if kind == wire.KindTerminal {
		want = listedOnTerminals
	}
	var out []string
	for _, s := range table.Ops() {
		h := handlers[s.Name]
		if h.hasTrait(want) && (perceive || !h.hasTrait(perceives) || kind != wire.KindDesktop) && !slices.Contains(out, s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}
