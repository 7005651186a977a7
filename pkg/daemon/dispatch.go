package daemon

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// call is one request being served.
type call struct {
	d   *Daemon
	c   *conn // nil inside group_run fan-out and tests
	att *attachment
	req *wire.Request
	ctx context.Context
	l   *Limb // the limb a limb op named, resolved before the handler runs
}

type handler func(*call) (*wire.Response, error)

// opInfo describes one op: its handler and whether it names a limb (then
// history is kept and the selector is resolved first).
type opInfo struct {
	fn       handler
	limbOp   bool
	noAttach bool // hello/ping: served before any attachment exists
}

var ops map[string]opInfo

func init() {
	ops = map[string]opInfo{
		wire.OpHello:      {fn: opHello},
		wire.OpAttach:     {fn: opHello},
		wire.OpPing:       {fn: opPing, noAttach: true},
		wire.OpShutdown:   {fn: opShutdown},
		wire.OpSubscribe:  {fn: opSubscribe},
		wire.OpLimbs:      {fn: opLimbs},
		wire.OpOpen:       {fn: opOpen},
		wire.OpClose:      {fn: opClose, limbOp: true},
		wire.OpReconnect:  {fn: opReconnect, limbOp: true},
		wire.OpStatus:     {fn: opStatus, limbOp: true},
		wire.OpControl:    {fn: opControl, limbOp: true},
		wire.OpTakeover:   {fn: opTakeover, limbOp: true},
		wire.OpClick:      {fn: opClick, limbOp: true},
		wire.OpType:       {fn: opType, limbOp: true},
		wire.OpKey:        {fn: opKey, limbOp: true},
		wire.OpScreen:     {fn: opScreen, limbOp: true},
		wire.OpWait:       {fn: opWait, limbOp: true},
		wire.OpSignals:    {fn: opSignals, limbOp: true},
		wire.OpClipboard:  {fn: opClipboard, limbOp: true},
		wire.OpRun:        {fn: opRun, limbOp: true},
		wire.OpTermRead:   {fn: opTermRead, limbOp: true},
		wire.OpTermSend:   {fn: opTermSend, limbOp: true},
		wire.OpFiles:      {fn: opFiles, limbOp: true},
		wire.OpTransfer:   {fn: opTransfer, limbOp: true},
		wire.OpHistory:    {fn: opHistory, limbOp: true},
		wire.OpHosts:      {fn: opHosts},
		wire.OpHostAdd:    {fn: opHostAdd},
		wire.OpHostRemove: {fn: opHostRemove},
		wire.OpHostTrust:  {fn: opHostTrust},
		wire.OpGroupOpen:  {fn: opGroupOpen},
		wire.OpGroupList:  {fn: opGroupList},
		wire.OpGroupGrow:  {fn: opGroupGrow},
		wire.OpGroupShrnk: {fn: opGroupShrink},
		wire.OpGroupClose: {fn: opGroupClose},
		wire.OpGroupRun:   {fn: opGroupRun},
		wire.OpTokenNew:   {fn: opTokenCreate},
		wire.OpTokenList:  {fn: opTokenList},
		wire.OpTokenRevok: {fn: opTokenRevoke},
	}
}

// OpNames lists every op dvvd serves (docs and the policy table test).
func OpNames() []string {
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	return names
}

func (c *conn) handle(req *wire.Request) {
	resp := c.serve(req)
	resp.ID = req.ID
	c.send(resp)
}

func (c *conn) serve(req *wire.Request) (resp *wire.Response) {
	defer func() {
		if r := recover(); r != nil {
			c.d.log.Error("panic serving request", "op", req.Op, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			resp = errorResponse(nil, wire.Errorf(wire.Internal, "dvvd hit a bug serving %q; it is still running", req.Op))
		}
	}()
	info, ok := ops[req.Op]
	if !ok {
		return errorResponse(nil, wire.Errorf(wire.BadRequest, "unknown op %q", req.Op))
	}
	if info.noAttach {
		r, err := info.fn(&call{d: c.d, c: c, req: req, ctx: c.ctx})
		if err != nil {
			return errorResponse(nil, err)
		}
		return r
	}
	c.attMu.Lock()
	att := c.att
	if att == nil || req.Op == wire.OpAttach || req.Op == wire.OpHello {
		if att != nil && (req.Token != "" || req.Session != "" || req.Name != "") {
			c.attMu.Unlock()
			return errorResponse(nil, wire.Errorf(wire.BadRequest, "this connection is already attached as %q; open a new connection to attach differently", att.name))
		}
		if att == nil {
			var err error
			att, err = c.d.attach(c, req)
			if err != nil {
				c.attMu.Unlock()
				return errorResponse(nil, err)
			}
			c.att = att
		}
	}
	c.attMu.Unlock()
	return c.d.dispatch(c.ctx, c, att, req)
}

// dispatch runs one request for an attachment: access check, selector,
// history, handler. group_run uses it for every member.
func (d *Daemon) dispatch(ctx context.Context, c *conn, att *attachment, req *wire.Request) *wire.Response {
	info, known := ops[req.Op]
	if !known {
		return errorResponse(nil, wire.Errorf(wire.BadRequest, "unknown op %q", req.Op))
	}
	d.touch(att)
	// Inside group_run, every member passes the start barrier exactly once,
	// also on early failures.
	passed := false
	pass := func() {
		if !passed {
			passed = true
			waitBarrier(ctx)
		}
	}
	defer pass()
	if err := d.authorize(att, req); err != nil {
		return errorResponse(nil, err)
	}
	cl := &call{d: d, c: c, att: att, req: req, ctx: ctx}
	if !info.limbOp {
		r, err := info.fn(cl)
		if err != nil {
			return errorResponse(nil, err)
		}
		return r
	}
	l, err := d.resolve(att, req)
	if err != nil {
		if req.Op == wire.OpClose && client.IsLimbGone(err) {
			r := ok(wire.OpClose) // idempotent: already gone is success
			r.LimbID = req.LimbID
			r.Dispatched = "the limb was already gone"
			return r
		}
		return errorResponse(nil, err)
	}
	cl.l = l
	start := time.Now()
	seq := d.events.publish(&wire.Event{Kind: "op.start", LimbID: l.id, Detail: req.Op})
	pass()
	r, err := info.fn(cl)
	d.events.publish(&wire.Event{Kind: "op.end", LimbID: l.id, Detail: fmt.Sprintf("%s #%d", req.Op, seq)})
	outcome := "ok"
	if err != nil {
		outcome = string(errorResponse(nil, err).Code)
	}
	if req.Op != wire.OpHistory {
		l.history.add(req.Op, att.name, outcome, historyDetail(req), start)
	}
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) && we.Observation == nil && observedCodes[we.Code] {
			we.Observation = l.observe(att)
		}
		return errorResponse(nil, err)
	}
	if r.LimbID == "" {
		r.LimbID = l.id
	}
	return r
}

// historyDetail is a short, secret-free description of a request: the
// action and counts, never text, pixels or paths' contents.
func historyDetail(req *wire.Request) string {
	s := req.Action
	if req.Text != nil {
		s += fmt.Sprintf(" (%d chars)", len([]rune(*req.Text)))
	}
	if req.Until != "" {
		s += " until=" + req.Until
	}
	if req.Keys != "" {
		s += " keys"
	}
	return s
}

// observedCodes are answered with the fresh observation, which saves the
// agent the status call its next move needs.
var observedCodes = map[wire.Code]bool{wire.GeometryChanged: true, wire.ScreenChanged: true,
	wire.LeaseRevoked: true, wire.LeaseNotHeld: true, wire.OutOfBounds: true, wire.NotConnected: true, wire.NotReady: true}

func ok(op string) *wire.Response { return &wire.Response{Result: op} }
