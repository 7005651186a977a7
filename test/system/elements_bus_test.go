package system_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// sidecarOnBus lists the connections the accessibility bus holds from the
// sidecar's sshd (the streamlocal channel dvvd's element ops come in by):
// their unique names and the pids of the sshd processes behind them, as
// the bus daemon itself accounts them.
func sidecarOnBus(t *testing.T, bus *dbus.Conn) map[string]uint32 {
	t.Helper()
	var names []string
	if err := bus.BusObject().Call("org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
		t.Fatal(err)
	}
	out := map[string]uint32{}
	for _, n := range names {
		if !strings.HasPrefix(n, ":") || n == bus.Names()[0] {
			continue
		}
		var pid uint32
		if bus.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, n).Store(&pid) != nil {
			continue // it left while listed
		}
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/comm")
		if strings.HasPrefix(string(comm), "sshd") {
			out[n] = pid
		}
	}
	return out
}

// Element ops share one connection to the session's accessibility bus per
// limb instead of dialling one each: after several inspects and acts the
// bus itself holds exactly one connection from the sidecar, the same one
// throughout. When that connection dies on the server's side (the sshd
// carrying it is killed), the next op dials again and works.
func TestElementOpsKeepOneBusConnectionAndRedialAfterItDies(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Cookie: true})
	s.Program(t, "keepbed", "zenity", "--entry", "--title", "keepbed", "--text", "Your name")
	d := startDaemonIn(t, "", s.SSHD.Home)
	limb := openDesktopWithSidecar(t, d, s)
	d.must("control", "acquire", limb)

	bus, err := dbus.Connect(s.A11yBus)
	if err != nil {
		t.Fatalf("connect to the accessibility bus %s: %v", s.A11yBus, err)
	}
	defer bus.Close()

	inspectID(t, d, limb, func(el wire.Element) bool { return el.Name == "OK" }, "--window", "keepbed", "--role", "push button")
	first := sidecarOnBus(t, bus)
	if len(first) != 1 {
		t.Fatalf("after an inspect the bus holds %d connections from the sidecar, want the one dvvd keeps: %v", len(first), first)
	}
	ok := inspectID(t, d, limb, func(el wire.Element) bool { return el.Name == "OK" }, "--window", "keepbed", "--role", "push button")
	for i := 0; i < 3; i++ {
		d.must("element", limb, ok, "focus")
		d.must("inspect", limb, "--window", "keepbed")
	}
	again := sidecarOnBus(t, bus)
	if len(again) != 1 || !sameKeys(first, again) {
		t.Fatalf("the bus's connections from the sidecar changed across ops: %v, then %v", first, again)
	}

	// Kill the sshd process that carries the connection: the bus sees it
	// leave, and so does dvvd's end of the stream.
	var name string
	var pid uint32
	for name, pid = range first {
	}
	if err := syscall.Kill(int(pid), syscall.SIGKILL); err != nil {
		t.Fatalf("kill the sidecar's sshd %d: %v", pid, err)
	}
	testbed.Eventually(t, 10*time.Second, "the killed connection leaving the bus", func() bool {
		_, there := sidecarOnBus(t, bus)[name]
		return !there
	})
	d.must("element", limb, ok, "focus")
	after := sidecarOnBus(t, bus)
	if len(after) != 1 {
		t.Fatalf("after the redial the bus holds %d connections from the sidecar: %v", len(after), after)
	}
	if _, old := after[name]; old {
		t.Fatalf("the connection %s the bus dropped is still listed", name)
	}
}

func sameKeys(a, b map[string]uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// eventsOf lists the accessibility events the registry holds for each bus
// name (in its own spelling, "Object:ChildrenChanged:"): what the programs'
// bridges emit, and to whom.
func eventsOf(t *testing.T, bus *dbus.Conn) map[string][]string {
	t.Helper()
	var evs []struct{ Bus, Event string }
	if err := bus.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/registry").Call("org.a11y.atspi.Registry.GetRegisteredEvents", 0).Store(&evs); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range evs {
		out[e.Bus] = append(out[e.Bus], e.Event)
	}
	return out
}

// An element wait is woken by the programs' accessibility events, not a
// fast poll: while `dvv wait --until element` waits, the registry holds
// dvvd's sidecar connection registered for children and window changes; a
// window opened then settles the wait with its button; after the wait the
// registration is dropped and the connection kept.
func TestElementWaitRegistersForEventsWhileItWaits(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Cookie: true})
	s.Program(t, "firstbed", "zenity", "--info", "--title", "firstbed", "--text", "first")
	d := startDaemonIn(t, "", s.SSHD.Home)
	limb := openDesktopWithSidecar(t, d, s)
	bus, err := dbus.Connect(s.A11yBus)
	if err != nil {
		t.Fatalf("connect to the accessibility bus %s: %v", s.A11yBus, err)
	}
	defer bus.Close()
	inspectID(t, d, limb, func(el wire.Element) bool { return el.Name == "OK" }, "--window", "firstbed", "--role", "push button")

	waited := make(chan result, 1)
	go func() {
		waited <- d.dvv("wait", limb, "--until", "element", "--window", "latebed", "--role", "push button", "--name", "OK", "--timeout", "20s", "--json")
	}()
	var sidecar string
	testbed.Eventually(t, 15*time.Second, "dvvd's connection registered for events while the wait waits", func() bool {
		evs := eventsOf(t, bus)
		for name := range sidecarOnBus(t, bus) {
			if anyHasPrefix(evs[name], "Object:ChildrenChanged") && anyHasPrefix(evs[name], "Window:") {
				sidecar = name
				return true
			}
		}
		return false
	})
	s.Program(t, "latebed", "zenity", "--info", "--title", "latebed", "--text", "late")
	var r result
	select {
	case r = <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("dvv wait did not return")
	}
	w := response(t, r).Wait
	if r.code != 0 || w == nil || !w.Settled || len(w.Elements) != 1 || w.Elements[0].Window != "latebed" {
		t.Fatalf("the wait answered %d: %s", r.code, r.stdout)
	}
	if got := eventsOf(t, bus)[sidecar]; len(got) != 0 {
		t.Fatalf("after the wait the registry still holds %v for dvvd's connection", got)
	}
	if _, kept := sidecarOnBus(t, bus)[sidecar]; !kept {
		t.Fatalf("dvvd's connection %s left the bus with the wait", sidecar)
	}
}

func anyHasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
