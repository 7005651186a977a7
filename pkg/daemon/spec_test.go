package daemon

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestEverySpecHasAHandler: the op table and the handlers agree, so no op
// is specified but unanswerable, nor answerable but unspecified.
func TestEverySpecHasAHandler(t *testing.T) {
	if err := checkHandlers(); err != nil {
		t.Fatal(err)
	}
}

// TestSpecWithoutHandlerFailsAtStart: dvvd refuses to start when an op is
// specified but has no handler.
func TestSpecWithoutHandlerFailsAtStart(t *testing.T) {
	wire.AddOp(wire.OpSpec{Name: "orphan_op"})
	defer wire.RemoveOp("orphan_op")
	d := New(Config{SocketPath: filepath.Join(t.TempDir(), "x.sock"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	err := d.Listen()
	if err == nil || !strings.Contains(err.Error(), "orphan_op") {
		t.Fatalf("Listen with a handler-less op: %v", err)
	}
}

// TestTrivialOpNeedsOnlySpecAndHandler adds an op the way a new feature
// would: one spec entry and one handler. Dispatch, field checks, policy
// and inline serving follow from the spec with nothing else edited.
func TestTrivialOpNeedsOnlySpecAndHandler(t *testing.T) {
	const op = "limb_count"
	wire.AddOp(wire.OpSpec{Name: op, Inline: true, ReadOnly: true, Caps: []string{string(policy.HistoryRead)},
		Fields: []wire.Field{{Name: "n", Min: new(int64), Note: "ignored"}}, Answer: "`dispatched`: how many limbs dvvd holds"})
	handlers[op] = func(c *call) (*wire.Response, error) {
		c.d.mu.Lock()
		n := len(c.d.limbs)
		c.d.mu.Unlock()
		r := ok(op)
		r.Dispatched = strings.Repeat("limb ", n) + "counted"
		return r, nil
	}
	defer func() { wire.RemoveOp(op); delete(handlers, op) }()

	d := startDaemon(t, Config{})
	c := dialClient(t, d, client.Options{})
	r := mustDo(t, c, &wire.Request{Op: op})
	if r.Result != op || r.Dispatched != "counted" {
		t.Fatalf("answer %+v", r)
	}
	// The spec's fields and bounds are enforced without handler code.
	_, err := do(t, c, &wire.Request{Op: op, N: intp(-1)})
	wantCode(t, err, wire.BadRequest)
	_, err = do(t, c, &wire.Request{Op: op, Text: strp("x")})
	wantCode(t, err, wire.BadRequest)
	if !strings.Contains(err.Error(), `"text"`) {
		t.Fatalf("the refusal does not name the field: %v", err)
	}
	// Policy reads the capability from the spec.
	if got := policy.Required(op, ""); len(got) != 1 || got[0] != policy.HistoryRead {
		t.Fatalf("policy.Required = %v", got)
	}
}
