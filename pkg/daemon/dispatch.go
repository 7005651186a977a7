package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/dvvhq/dvv/pkg/rfbserver"
	"github.com/dvvhq/dvv/pkg/wire"
)

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
		r, err := handlers[req.OpName].serve(&opCall{d: d, c: c, req: req, ctx: ctx})
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
	cl := &opCall{d: d, c: c, att: att, req: req, ctx: ctx}
	if !spec.Limb {
		r, err := handlers[req.OpName].serve(cl)
		return cl.answer(r, d.declared(spec, err))
	}
	l, err := d.resolve(att, req.target())
	if err != nil {
		return goneOrFailed(h.hasTrait(goneIsDone), req, err)
	}
	cl.l = l
	if h.hasTrait(brief) {
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
func (c *opCall) perform(spec *wire.OpSpec) (wire.Answer, error) {
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
func (c *opCall) note(spec *wire.OpSpec, r wire.Answer, err error, start time.Time) {
	outcome := "ok"
	if err != nil {
		outcome = string(errorResponse(nil, err).Code)
	}
	h := handlers[c.req.OpName]
	if !h.hasTrait(unlogged) {
		c.l.history.Add(c.req.OpName, c.att.name, outcome, historyDetail(c.req), start)
	}
	var verified *wire.Verification
	if va, ok := r.(wire.Verifiable); ok && err == nil {
		verified = va.Verified()
	}
	if h.hasTrait(recorded) {
		c.l.noteAct(c.req, c.att.name, outcome, verified, start)
	}
	if spec.Dispatches {
		c.l.actLog.add(c.req, c.att.name, outcome, start) // the viewer's overlay
	}
}

// answer turns the handler's outcome into the reply: a limb op's answer
// names its limb, and a refusal whose code calls for it carries the
// limb's fresh observation.
func (c *opCall) answer(r wire.Answer, err error) reply {
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
