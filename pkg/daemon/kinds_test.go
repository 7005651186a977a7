package daemon

import (
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestWrongKindIsRefusedByDispatch: an op bound to terminals, sent to a
// desktop limb, is refused before its handler runs (run without a command
// would otherwise be BAD_REQUEST), with WRONG_PROTOCOL naming the kind it
// needs, and the refusal is in the limb's history like any answer.
func TestWrongKindIsRefusedByDispatch(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "agent"})
	id := openFake(t, c, "fake")
	var bound []string
	for _, s := range wire.Ops {
		if s.Kind == wire.KindTerminal {
			bound = append(bound, s.Name)
		}
	}
	if len(bound) == 0 {
		t.Fatal("no op is bound to terminals")
	}
	for _, op := range bound {
		_, err := do(t, c, &wire.Request{Op: op, LimbID: id})
		wantCode(t, err, wire.WrongProtocol)
		want := "limb " + id + " is a desktop; " + op + " needs a terminal limb (ssh)"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v does not say %q", op, err, want)
		}
	}
	h := mustDo(t, c, &wire.Request{Op: wire.OpHistory, LimbID: id}).History
	refused := map[string]bool{}
	for _, e := range h {
		if e.Outcome == string(wire.WrongProtocol) {
			refused[e.Op] = true
		}
	}
	for _, op := range bound {
		if !refused[op] {
			t.Errorf("history has no WRONG_PROTOCOL entry for %s: %+v", op, h)
		}
	}
}
