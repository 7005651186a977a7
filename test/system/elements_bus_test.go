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
