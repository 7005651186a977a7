package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/dvvhq/dvv/pkg/rfbserver"
	"github.com/dvvhq/dvv/pkg/wire"
)

// call is one request being served.
type call struct {
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
	serve  func(*call) (wire.Answer, error)
	traits trait // what dvvd's own work needs to know of the op (register)
}

// typed registers fn for the op whose Args is A and whose answer is R
// (*wire.ClickAnswer, …): fn fills only the fields its op declares, and
// typed turns the answer into its line. The request has passed its spec's
// Check in dispatch; the required fields are checked here, last, so a
// wrong limb kind or a missing limb is answered first.
func typed[A wire.Args, R wire.Answer](fn func(*call, A) (R, error)) handler {
	answer := reflect.TypeFor[R]()
	if answer.Kind() == reflect.Pointer {
		answer = answer.Elem()
	}
	return handler{args: reflect.TypeFor[A](), answer: answer, serve: func(c *call) (wire.Answer, error) {
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
	return handler{args: desktop.args, answer: desktop.answer, serve: func(c *call) (wire.Answer, error) {
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
func (c *call) requestID() json.RawMessage {
	if c.req == nil {
		return nil
	}
	return c.req.ID
}

func (d *Daemon) handle(ctx context.Context, c *conn, req *request) {
	c.reply(req.ID, d.serve(ctx, c, req))
}

// panicSummary describes a recovered panic without its value: a value may
// be built from the request (the text being typed, a password). The
// runtime's own errors (index out of range, nil map, failed type
// assertion) hold only numbers and type names and are kept; anything else
// is named by its type. The stack shows where, which is what a fix needs.
func panicSummary(r any) string {
	if re, ok := r.(runtime.Error); ok {
		return re.Error()
	}
	return fmt.Sprintf("a value of type %T (not logged: it may hold request data)", r)
}

func (d *Daemon) serve(ctx context.Context, c *conn, req *request) (rep reply) {
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("panic serving request", "op", req.OpName, "panic", panicSummary(r), "stack", string(debug.Stack()))
			rep = failed(wire.Errorf(wire.Internal, "dvvd hit a bug serving %q; it is still running", req.OpName))
		}
	}()
	spec, ok := d.cfg.Ops.Spec(req.OpName)
	if !ok {
		return failed(wire.Errorf(wire.BadRequest, "unknown op %q", req.OpName))
	}
	if spec.NoAttach {
		if err := spec.Check(req.args); err != nil {
			return failed(err)
		}
		r, err := handlers[req.OpName].serve(&call{d: d, c: c, req: req, ctx: ctx})
		if err != nil {
			return failed(err)
		}
		return reply{ans: r}
	}
	c.attMu.Lock()
	att := c.att
	if att == nil || req.OpName == wire.OpAttach || req.OpName == wire.OpHello {
		if att != nil && (req.Token != "" || req.Session != "" || req.Name != "") {
			c.attMu.Unlock()
			return failed(wire.Errorf(wire.BadRequest, "this connection is already attached as %q; open a new connection to attach differently", att.name))
		}
		if att == nil {
			var err error
			att, err = d.attach(c, req)
			if err != nil {
				c.attMu.Unlock()
				return failed(err)
			}
			c.att = att
		}
	}
	c.attMu.Unlock()
	return d.dispatch(ctx, c, att, req)
}

// dispatch runs one request for an attachment through its stages: admit
// (fields, addresses, policy), the limb it names, act (the handler,
// refused for the other kind of limb and watched by verification), note
// (history, the recording's acts, the viewer's overlay) and answer.
func (d *Daemon) dispatch(ctx context.Context, c *conn, att *attachment, req *request) reply {
	return d.dispatchReady(ctx, c, att, req, func() {})
}

// dispatchReady is dispatch with ready, run when the request is about to
// act or, refused before that, when it returns; ready must bear being
// called twice. group_run holds its members at a start barrier with it.
func (d *Daemon) dispatchReady(ctx context.Context, c *conn, att *attachment, req *request, ready func()) reply {
	defer ready()
	spec, known := d.cfg.Ops.Spec(req.OpName)
	if !known {
		return failed(wire.Errorf(wire.BadRequest, "unknown op %q", req.OpName))
	}
	h := handlers[req.OpName]
	d.touch(att)
	if err := d.admit(spec, att, req); err != nil {
		return failed(err)
	}
	cl := &call{d: d, c: c, att: att, req: req, ctx: ctx}
	if !spec.Limb {
		r, err := handlers[req.OpName].serve(cl)
		return cl.answer(r, d.declared(spec, err))
	}
	l, err := d.resolve(att, req.target())
	if err != nil {
		return goneOrFailed(h.has(goneIsDone), req, err)
	}
	cl.l = l
	if h.has(brief) {
		defer rfbserver.Priority()()
	}
	start := time.Now()
	seq := d.events.publish(&wire.Event{Kind: "op.start", LimbID: l.id, Detail: req.OpName})
	// Members of a group_run start their work together: after their own
	// checks and selector, right before the handler.
	ready()
	r, err := cl.perform(spec)
	err = d.declared(spec, err)
	d.events.publish(&wire.Event{Kind: "op.end", LimbID: l.id, Detail: fmt.Sprintf("%s #%d", req.OpName, seq)})
	cl.note(spec, r, err, start)
	return cl.answer(r, err)
}

// admit checks a request before anything is looked up for it: its
// fields against the spec, its addresses, the attachment's capabilities.
func (d *Daemon) admit(spec *wire.OpSpec, att *attachment, req *request) error {
	if err := spec.Check(req.args); err != nil {
		return err
	}
	if err := checkAddresses(req); err != nil {
		return err
	}
	return d.authorize(att, req)
}

// goneOrFailed answers a limb op whose limb could not be resolved: for an
// op where gone is done (close), a limb already gone is a success.
func goneOrFailed(goneIsDone bool, req *request, err error) reply {
	var we *wire.Error
	if goneIsDone && errors.As(err, &we) && we.Code == wire.LimbGone {
		return reply{ans: &goneDone{op: req.OpName, LimbID: req.target().LimbID, Dispatched: "the limb was already gone"}}
	}
	return failed(err)
}

// perform runs the handler on the resolved limb. A kind-bound op is refused
// here, once, for a limb of the other kind; the refusal still goes into
// the limb's history like any answer. An act's answer carries what its
// verification saw.
func (c *call) perform(spec *wire.OpSpec) (wire.Answer, error) {
	if err := spec.CheckKind(c.l.id, c.l.kind, spec.VariantOf(c.req.args)); err != nil {
		return nil, err
	}
	// An act waits out a restore or reset of the limb's machine
	// (machine.go), then meets the new generation and the armed fence.
	leave := c.l.enterActGate(spec.Dispatches)
	defer leave()
	v := c.startVerify()
	r, err := handlers[c.req.OpName].serve(c)
	if va, ok := r.(wire.Verifiable); ok && err == nil && v != nil {
		va.SetVerification(v.Finish(c.ctx))
	} else {
		v.Stop()
	}
	return r, err
}

// note keeps what a limb op did: in the limb's history, a recording's
// acts and the viewer's overlay, as its spec says.
func (c *call) note(spec *wire.OpSpec, r wire.Answer, err error, start time.Time) {
	outcome := "ok"
	if err != nil {
		outcome = string(errorResponse(nil, err).Code)
	}
	h := handlers[c.req.OpName]
	if !h.has(unlogged) {
		c.l.history.Add(c.req.OpName, c.att.name, outcome, historyDetail(c.req), start)
	}
	var verified *wire.Verification
	if va, ok := r.(wire.Verifiable); ok && err == nil {
		verified = va.Verified()
	}
	if h.has(recorded) {
		c.l.noteAct(c.req, c.att.name, outcome, verified, start)
	}
	if spec.Dispatches {
		c.l.actLog.add(c.req, c.att.name, outcome, start) // the viewer's overlay
	}
}

// answer turns the handler's outcome into the reply: a limb op's answer
// names its limb, and a refusal whose code calls for it carries the
// limb's fresh observation.
func (c *call) answer(r wire.Answer, err error) reply {
	if err != nil {
		var we *wire.Error
		if c.l != nil && errors.As(err, &we) && we.Observation == nil && observedCodes[we.Code] {
			we.Observation = c.l.observe(c.att)
		}
		return failed(err)
	}
	if la, ok := r.(wire.LimbAnswered); ok && c.l != nil {
		la.FillLimbID(c.l.id)
	}
	return reply{ans: r}
}

// historyDetail is a short, secret-free description of a request: the
// action and counts, never text, pixels or paths' contents.
func historyDetail(req *request) string {
	g := req.gist()
	s := g.Action
	if g.Text != nil {
		s += fmt.Sprintf(" (%d chars)", len([]rune(*g.Text)))
	}
	if g.Until != "" {
		s += " until=" + g.Until
	}
	if g.Keys != "" {
		s += " keys"
	}
	return s
}

// observedCodes are answered with the fresh observation, which saves the
// agent the status call its next move needs.
var observedCodes = map[wire.Code]bool{wire.GeometryChanged: true, wire.ScreenChanged: true,
	wire.LeaseRevoked: true, wire.LeaseNotHeld: true, wire.OutOfBounds: true, wire.NotConnected: true, wire.NotReady: true}

// lostConnection codes say why a limb's connection failed. An op that does
// not declare them (wait, click, …) answers NOT_CONNECTED instead, with the
// original code in the message: its caller's move is the same whatever
// broke the connection.
var lostConnection = map[wire.Code]bool{wire.AuthFailed: true, wire.Unreachable: true, wire.ProtocolError: true,
	wire.HostKeyUnknown: true, wire.HostKeyChanged: true, wire.Unsupported: true}

// strictCodes turns an undeclared code into INTERNAL, so a test run with
// DVV_STRICT_CODES=1 finds every gap between the op table and the code.
var strictCodes = os.Getenv("DVV_STRICT_CODES") == "1"

// declared keeps an op's answers within the codes its spec names: a lost
// connection becomes NOT_CONNECTED; anything else undeclared is logged so
// the spec (and docs/tools.md) can be corrected.
func (d *Daemon) declared(spec *wire.OpSpec, err error) error {
	var we *wire.Error
	if err == nil || !errors.As(err, &we) || spec.CanRaise(we.Code) {
		return err
	}
	if lostConnection[we.Code] && spec.CanRaise(wire.NotConnected) {
		next := we.Next
		if next == "" {
			next = we.Code.Info().Next
		}
		return &wire.Error{Code: wire.NotConnected, Cause: we.Code, Observation: we.Observation, Fingerprint: we.Fingerprint,
			Message: fmt.Sprintf("the limb is not connected: %s: %s", we.Code, we.Message), Next: next + " Then `reconnect`."}
	}
	d.log.Warn("op answered a code its spec does not declare", "op", spec.Name, "code", we.Code)
	if strictCodes {
		return wire.Errorf(wire.Internal, "op %s answered %s, which its spec does not declare (DVV_STRICT_CODES): %s", spec.Name, we.Code, we.Message)
	}
	return err
}
