package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestEverySpecHasAHandler: the op table and the handlers agree, so no op
// is specified but unanswerable, nor answerable but unspecified.
func TestEverySpecHasAHandler(t *testing.T) {
	if err := checkHandlers(wire.Builtin()); err != nil {
		t.Fatal(err)
	}
}

// TestSpecWithoutHandlerFailsAtStart: dvvd refuses to start when an op is
// specified but has no handler.
func TestSpecWithoutHandlerFailsAtStart(t *testing.T) {
	ops := withOp(wire.OpSpec{Name: "orphan_op"})
	d := New(Config{SocketPath: filepath.Join(t.TempDir(), "x.sock"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Ops: ops})
	err := d.Listen()
	if err == nil || !strings.Contains(err.Error(), "orphan_op") {
		t.Fatalf("Listen with a handler-less op: %v", err)
	}
}

// TestHandlerWithOtherArgsFailsAtStart: a handler registered for one op's
// arguments under another op is a start-up failure, not a wrong decode.
func TestHandlerWithOtherArgsFailsAtStart(t *testing.T) {
	saved := handlers[wire.OpPing]
	handlers[wire.OpPing] = typed(func(c *opCall, a wire.StatusArgs) (*wire.PingAnswer, error) { return &wire.PingAnswer{}, nil })
	defer func() { handlers[wire.OpPing] = saved }()
	err := checkHandlers(wire.Builtin())
	if err == nil || !strings.Contains(err.Error(), "StatusArgs") {
		t.Fatalf("checkHandlers with a mismatched handler: %v", err)
	}
}

// TestHandlerWithOtherAnswerFailsAtStart: a handler that answers another
// op's answer type is a start-up failure too.
func TestHandlerWithOtherAnswerFailsAtStart(t *testing.T) {
	saved := handlers[wire.OpPing]
	handlers[wire.OpPing] = typed(func(c *opCall, a wire.PingArgs) (*wire.StatusAnswer, error) { return &wire.StatusAnswer{}, nil })
	defer func() { handlers[wire.OpPing] = saved }()
	err := checkHandlers(wire.Builtin())
	if err == nil || !strings.Contains(err.Error(), "StatusAnswer") {
		t.Fatalf("checkHandlers with a mismatched answer: %v", err)
	}
}

// withOp is dvv's op table with one op more, for a daemon that serves it.
func withOp(s wire.OpSpec) *wire.Table {
	return wire.NewTable(append(slices.Clone(wire.Ops()), s))
}

// limbCountArgs are the trivial op's arguments.
type limbCountArgs struct {
	wire.Envelope
	N *int `json:"n,omitempty"`
}

func (limbCountArgs) Op() string { return "limb_count" }

// limbCountAnswer is the trivial op's answer: the one field its spec
// declares, and the line it makes.
type limbCountAnswer struct {
	Dispatched string `json:"dispatched,omitempty"`
}

func (limbCountAnswer) Op() string { return "limb_count" }
func (a *limbCountAnswer) Response() *wiretest.Response {
	return &wiretest.Response{Result: "limb_count", Dispatched: a.Dispatched}
}

// TestTrivialOpNeedsOnlySpecAndHandler adds an op the way a new feature
// would: one spec entry naming its Args, and one handler. Dispatch, field
// checks (unknown, bounds, required), policy and inline serving follow from
// the spec with nothing else edited.
func TestTrivialOpNeedsOnlySpecAndHandler(t *testing.T) {
	const op = "limb_count"
	ops := withOp(wire.OpSpec{Name: op, Inline: true, ReadOnly: true, Caps: []string{string(policy.HistoryRead)},
		Fields: []wire.Field{{Name: "n", Min: new(int64), Required: true, Note: "echoed"}}, Answer: "`dispatched`: how many limbs dvvd holds",
		Args: reflect.TypeFor[limbCountArgs](), Answers: []string{"dispatched"}, AnswerType: reflect.TypeFor[limbCountAnswer]()})
	handlers[op] = typed(func(c *opCall, a limbCountArgs) (*limbCountAnswer, error) {
		c.d.mu.Lock()
		n := len(c.d.limbs)
		c.d.mu.Unlock()
		r := &limbCountAnswer{}
		r.Dispatched = strings.Repeat("limb ", n) + "counted"
		if a.N != nil {
			r.Dispatched += fmt.Sprintf(" (n=%d)", *a.N)
		}
		return r, nil
	})
	defer delete(handlers, op)

	d := startDaemon(t, Config{Ops: ops})
	c := dialClient(t, d, client.Options{})
	r, err := doRaw(t, c, raw(op, "n", 0)) // the untyped line, as an old client sends it
	if err != nil {
		t.Fatal(err)
	}
	if r.Result != op || r.Dispatched != "counted (n=0)" {
		t.Fatalf("answer %+v", r)
	}
	// The handler reads its typed argument; the typed client sends it.
	r, err = client.Call[wiretest.Response](context.Background(), c, limbCountArgs{N: intp(2)})
	if err != nil || r.Dispatched != "counted (n=2)" {
		t.Fatalf("typed call: %+v %v", r, err)
	}
	// The spec's fields, bounds and required fields are enforced without
	// handler code.
	_, err = doRaw(t, c, raw(op, "n", -1))
	wantCode(t, err, wire.BadRequest)
	_, err = doRaw(t, c, raw(op))
	wantCode(t, err, wire.BadRequest)
	if !strings.Contains(err.Error(), "n is required") {
		t.Fatalf("the refusal does not name the missing field: %v", err)
	}
	_, err = doRaw(t, c, raw(op, "text", "x"))
	wantCode(t, err, wire.BadRequest)
	if !strings.Contains(err.Error(), `"text"`) {
		t.Fatalf("the refusal does not name the field: %v", err)
	}
	// Policy reads the capability from the spec.
	if got := policy.Required(ops, op, ""); len(got) != 1 || got[0] != policy.HistoryRead {
		t.Fatalf("policy.Required = %v", got)
	}
}

// TestDispatchAddsOnlyDeclaredAnswerFields: what dispatch adds to a
// handler's answer (limbId on limb ops, an act's verification) is in that
// op's declared answer fields, so the typed answer a client reads has it.
func TestDispatchAddsOnlyDeclaredAnswerFields(t *testing.T) {
	for _, s := range wire.Ops() {
		op := s.Name
		if s.Dispatches && !slices.Contains(s.AnswerFields(), "verification") {
			t.Errorf("op %s's answers carry a verification its spec does not declare", op)
		}
	}
	for _, s := range wire.Ops() {
		if s.Limb && !slices.Contains(s.AnswerFields(), "limbId") {
			t.Errorf("limb op %s's answers carry a limbId its spec does not declare", s.Name)
		}
	}
}
