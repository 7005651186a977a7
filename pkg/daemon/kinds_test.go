package daemon

import (
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/limb"
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
	for _, s := range wire.Ops() {
		if s.Kind == wire.KindTerminal {
			bound = append(bound, s.Name)
		}
	}
	if len(bound) == 0 {
		t.Fatal("no op is bound to terminals")
	}
	for _, op := range bound {
		_, err := doRaw(t, c, raw(op, "limbId", id)) // any terminal op, by name
		wantCode(t, err, wire.WrongProtocol)
		want := "limb " + id + " is a desktop; " + op + " needs a terminal limb (ssh)"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v does not say %q", op, err, want)
		}
	}
	// A variant bound to terminals is refused the same way, naming it.
	_, err := doRaw(t, c, raw(wire.OpWait, "limbId", id, "until", "exit"))
	wantCode(t, err, wire.WrongProtocol)
	if want := "wait until exit needs a terminal limb (ssh)"; !strings.Contains(err.Error(), want) {
		t.Errorf("wait until exit on a desktop: %v does not say %q", err, want)
	}
	h := mustDo(t, c, wire.HistoryArgs{Target: wire.Target{LimbID: id}}).History
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

// TestNewProtocolIsOneRegistration: a protocol added to wire.Protocols with
// a dialer is opened on its default port, follows its slot rule, is named
// in the protocol choices, and its limbs get the ops of its kind.
func TestNewProtocolIsOneRegistration(t *testing.T) {
	saved := wire.Protocols
	wire.Protocols = append(append([]wire.ProtocolSpec{}, saved...),
		wire.ProtocolSpec{Name: "fakep", Kind: wire.KindDesktop, DefaultPort: 7000, Service: "_fakep._tcp"})
	// Restored last, once the daemon (if any) has stopped reading it.
	t.Cleanup(func() { wire.Protocols = saved })

	d := startDaemon(t, Config{Desktop: map[string]limb.DesktopDialer{"fakep": fakeDial}})
	c := dialClient(t, d, client.Options{Name: "agent"})
	r := mustDo(t, c, wire.OpenArgs{Address: "fake", Protocol: "fakep"})
	if want := LimbID("fakep", "fake", 7000, 0); r.LimbID != want {
		t.Fatalf("opened %s, want %s (the registered default port)", r.LimbID, want)
	}
	_, err := do(t, c, wire.OpenArgs{Address: "fake", Protocol: "fakep", Slot: intp(1)})
	wantCode(t, err, wire.SlotRefused)
	_, err = do(t, c, wire.OpenArgs{Address: "fake", Protocol: "nope"})
	wantCode(t, err, wire.BadRequest)
	if !strings.Contains(err.Error(), "fakep") {
		t.Fatalf("the refusal of an unknown protocol does not list the registered ones: %v", err)
	}
	_, err = do(t, c, wire.TermReadArgs{Target: wire.Target{LimbID: r.LimbID}})
	wantCode(t, err, wire.WrongProtocol)
	if !strings.Contains(wire.DefaultPorts(), "7000 fakep") {
		t.Fatalf("default ports for help text: %s", wire.DefaultPorts())
	}
}
