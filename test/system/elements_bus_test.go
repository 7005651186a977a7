package system_test

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// busRelay stands between the session's programs and dvvd's sidecar and
// the accessibility bus: it counts the connections that come from the
// sidecar's sshd (dvvd's dials) and can end them from the bus's side while
// the sidecar's SSH connection stays up. A program's own connections pass
// through untouched.
type busRelay struct {
	mu     sync.Mutex
	dialed int
	open   []net.Conn
}

func startBusRelay(t *testing.T, listen, bus string) *busRelay {
	t.Helper()
	ln, err := net.Listen("unix", listen)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	r := &busRelay{}
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("unix", bus)
			if err != nil {
				in.Close()
				continue
			}
			if peerIsSSHD(in) {
				r.mu.Lock()
				r.dialed++
				r.open = append(r.open, in, out)
				r.mu.Unlock()
			}
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	t.Cleanup(r.cut)
	return r
}

// peerIsSSHD says the process at the other end of c is an sshd.
func peerIsSSHD(c net.Conn) bool {
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	raw.Control(func(fd uintptr) { cred, _ = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED) })
	if cred == nil {
		return false
	}
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(int(cred.Pid)) + "/comm")
	return strings.HasPrefix(string(comm), "sshd")
}

// cut ends every relayed connection of dvvd's on both sides.
func (r *busRelay) cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.open {
		c.Close()
	}
	r.open = nil
}

func (r *busRelay) count() int { r.mu.Lock(); defer r.mu.Unlock(); return r.dialed }

// relayedOnBus lists the bus's connections that came through the relay
// (this process is their peer), leaving out the test's own.
func relayedOnBus(t *testing.T, bus *dbus.Conn) map[string]bool {
	t.Helper()
	var names []string
	if err := bus.BusObject().Call("org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		var pid uint32
		if strings.HasPrefix(n, ":") && n != bus.Names()[0] &&
			bus.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, n).Store(&pid) == nil && int(pid) == os.Getpid() {
			out[n] = true
		}
	}
	return out
}

// The bus connection ending on its own (the bus side closes it, the
// sidecar's SSH connection stays) is noticed and dialled again by the next
// op. The session's AT_SPI_BUS names a relay in front of the real bus, so
// the test counts each dial dvvd makes and can end its connection from the
// bus's side: an inspect and three acts make one dial; after the cut the
// bus drops that connection, and the next op makes exactly one more dial,
// works, and the bus lists one new connection in the old one's place.
func TestElementBusConnectionEndedAloneIsDialledAgain(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Cookie: true})
	prog, _ := s.Program(t, "relaybed", "zenity", "--entry", "--title", "relaybed", "--text", "Your name")
	bus, err := dbus.Connect(s.A11yBus)
	if err != nil {
		t.Fatalf("connect to the accessibility bus %s: %v", s.A11yBus, err)
	}
	defer bus.Close()
	// The program's bridge connects after its window maps: only once it is
	// on the real bus may AT_SPI_BUS name the relay.
	testbed.Eventually(t, 15*time.Second, "the program on the accessibility bus", func() bool {
		var names []string
		bus.BusObject().Call("org.freedesktop.DBus.ListNames", 0).Store(&names)
		for _, n := range names {
			var pid uint32
			if bus.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, n).Store(&pid) == nil && int(pid) == prog.Cmd.Process.Pid {
				return true
			}
		}
		return false
	})
	real := strings.TrimPrefix(strings.Split(s.A11yBus, ",")[0], "unix:path=")
	relayPath := filepath.Join(s.RuntimeDir, "a11y-relay")
	relay := startBusRelay(t, relayPath, real)
	// The program already found the real bus; dvvd's sidecar reads the
	// root window's AT_SPI_BUS when it first looks, and finds the relay.
	s.Run(t, "xprop", "-root", "-f", "AT_SPI_BUS", "8s", "-set", "AT_SPI_BUS", "unix:path="+relayPath)

	d := startDaemonIn(t, "", s.SSHD.Home)
	limb := openDesktopWithSidecar(t, d, s)
	d.must("control", "acquire", limb)
	ok := inspectID(t, d, limb, func(el wire.Element) bool { return el.Name == "OK" }, "--window", "relaybed", "--role", "push button")
	for i := 0; i < 3; i++ {
		d.must("element", limb, ok, "focus")
	}
	if relay.count() != 1 {
		t.Fatalf("after an inspect and three acts dvvd dialled the bus %d times, want one kept connection", relay.count())
	}
	before := relayedOnBus(t, bus)

	// The cut ends dvvd's connection only; which name was its is what the
	// bus stops listing.
	relay.cut()
	var gone string
	testbed.Eventually(t, 10*time.Second, "the cut connection leaving the bus", func() bool {
		now := relayedOnBus(t, bus)
		for n := range before {
			if !now[n] {
				gone = n
			}
		}
		return gone != "" && len(now) == len(before)-1
	})
	d.must("element", limb, ok, "focus")
	after := relayedOnBus(t, bus)
	var added []string
	for n := range after {
		if !before[n] {
			added = append(added, n)
		}
	}
	if relay.count() != 2 || len(added) != 1 || after[gone] {
		t.Fatalf("after the cut dvvd dialled %d times in all; the bus lost %s and gained %v, want one new connection", relay.count(), gone, added)
	}
}
