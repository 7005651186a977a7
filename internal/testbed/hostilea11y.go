package testbed

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/godbus/dbus/v5"
)

// HostileA11yTitle is the title of the hostile accessible program's window.
const HostileA11yTitle = "hostile-a11y"

// HostileA11yName is the start of the megabyte the hostile program names
// an element with: a terminal escape and a C1 control (D-Bus carries
// only valid UTF-8).
const HostileA11yName = "huge\x1b]0;pwned\x07\u009b"

// HostileA11y is a program on a session's accessibility bus that speaks
// AT-SPI to lie to whoever reads it. It lists its one window
// (HostileA11yTitle) 100000 times; the window holds
// a button named with a megabyte (HostileA11yName, then filler), two
// panels "cycle-a" and "cycle-b" that are each other's child (and b names
// the window again), and a table "liar" whose ChildCount claims 1e9 and
// whose GetChildren names its one cell 100000 times. A silent one lists
// 50 windows, none of which ever answers a call.
type HostileA11y struct {
	Bus string // its unique name on the bus
	// Unanswered counts the calls a silent program received and never
	// answered: what a reader made it wait for.
	Unanswered atomic.Int64
	// Calls counts every call on its objects.
	Calls  atomic.Int64
	silent bool
	hang   chan struct{}
}

const a11yRoot = dbus.ObjectPath("/org/a11y/atspi/accessible/root")

type a11yRef struct {
	Bus  string
	Path dbus.ObjectPath
}

// StartHostileA11y joins the accessibility bus at address (AT_SPI_BUS's
// value), exports the program and embeds it with the registry, as a real
// toolkit does, until the test ends.
func StartHostileA11y(t testing.TB, address string, silent bool) *HostileA11y {
	t.Helper()
	conn, err := dbus.Dial(address)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	h := &HostileA11y{Bus: conn.Names()[0], silent: silent, hang: make(chan struct{})}
	t.Cleanup(func() { close(h.hang); conn.Close() })
	for _, iface := range []string{"org.a11y.atspi.Accessible", "org.a11y.atspi.Component", "org.freedesktop.DBus.Properties"} {
		if err := conn.ExportSubtree(h, "/org/a11y/atspi/accessible", iface); err != nil {
			t.Fatal(err)
		}
	}
	var socket a11yRef
	if err := conn.Object("org.a11y.atspi.Registry", a11yRoot).Call("org.a11y.atspi.Socket.Embed", 0, a11yRef{h.Bus, a11yRoot}).Store(&socket); err != nil {
		t.Fatalf("embedding the hostile program with the registry: %v", err)
	}
	return h
}

// node is what the program claims at path p; ok false: a silent window.
func (h *HostileA11y) node(msg dbus.Message) (p string, ok bool) {
	h.Calls.Add(1)
	path, _ := msg.Headers[dbus.FieldPath].Value().(dbus.ObjectPath)
	p = strings.TrimPrefix(string(path), "/org/a11y/atspi/accessible/")
	if h.silent && p != "root" {
		h.Unanswered.Add(1)
		<-h.hang // never answers while the test runs
		return p, false
	}
	return p, true
}

func (h *HostileA11y) ref(p string) a11yRef {
	return a11yRef{h.Bus, dbus.ObjectPath("/org/a11y/atspi/accessible/" + p)}
}

var errSilent = dbus.NewError("org.freedesktop.DBus.Error.NoReply", nil)

func (h *HostileA11y) GetRoleName(msg dbus.Message) (string, *dbus.Error) {
	p, ok := h.node(msg)
	if !ok {
		return "", errSilent
	}
	switch p {
	case "root":
		return "application", nil
	case "w":
		return "frame", nil
	case "big":
		return "push button", nil
	case "liar":
		return "table", nil
	case "liar/cell":
		return "table cell", nil
	}
	return "panel", nil
}

func (h *HostileA11y) GetState(msg dbus.Message) ([]uint32, *dbus.Error) {
	if _, ok := h.node(msg); !ok {
		return nil, errSilent
	}
	return []uint32{1<<25 | 1<<30, 0}, nil // showing, visible
}

func (h *HostileA11y) GetInterfaces(msg dbus.Message) ([]string, *dbus.Error) {
	if _, ok := h.node(msg); !ok {
		return nil, errSilent
	}
	return []string{"org.a11y.atspi.Accessible", "org.a11y.atspi.Component"}, nil
}

func (h *HostileA11y) GetRelationSet(msg dbus.Message) ([]struct {
	Type    uint32
	Targets []a11yRef
}, *dbus.Error) {
	if _, ok := h.node(msg); !ok {
		return nil, errSilent
	}
	return nil, nil
}

func (h *HostileA11y) GetChildren(msg dbus.Message) ([]a11yRef, *dbus.Error) {
	p, ok := h.node(msg)
	if !ok {
		return nil, errSilent
	}
	switch {
	case p == "root" && h.silent:
		out := make([]a11yRef, 50)
		for i := range out {
			out[i] = h.ref(fmt.Sprintf("hang/%d", i))
		}
		return out, nil
	case p == "root":
		out := make([]a11yRef, 100000)
		for i := range out {
			out[i] = h.ref("w")
		}
		return out, nil
	case p == "w":
		return []a11yRef{h.ref("big"), h.ref("a"), h.ref("liar")}, nil
	case p == "a":
		return []a11yRef{h.ref("b")}, nil
	case p == "b":
		return []a11yRef{h.ref("a"), h.ref("w")}, nil
	case p == "liar":
		out := make([]a11yRef, 100000)
		for i := range out {
			out[i] = h.ref("liar/cell")
		}
		return out, nil
	}
	return []a11yRef{}, nil
}

func (h *HostileA11y) GetExtents(msg dbus.Message, coords uint32) (struct{ X, Y, W, H int32 }, *dbus.Error) {
	if _, ok := h.node(msg); !ok {
		return struct{ X, Y, W, H int32 }{}, errSilent
	}
	return struct{ X, Y, W, H int32 }{10, 10, 300, 200}, nil
}

// Get answers the properties dvv reads: Name, ChildCount, Parent.
func (h *HostileA11y) Get(msg dbus.Message, iface, name string) (dbus.Variant, *dbus.Error) {
	p, ok := h.node(msg)
	if !ok {
		return dbus.Variant{}, errSilent
	}
	switch name {
	case "ChildCount":
		if p == "liar" {
			return dbus.MakeVariant(int32(1e9)), nil
		}
		return dbus.MakeVariant(int32(1)), nil
	case "Parent":
		return dbus.MakeVariant(h.ref("w")), nil
	case "Name":
	default:
		return dbus.Variant{}, dbus.NewError("org.freedesktop.DBus.Error.UnknownProperty", []any{name})
	}
	switch p {
	case "root":
		return dbus.MakeVariant("hostile"), nil
	case "w":
		return dbus.MakeVariant(HostileA11yTitle), nil
	case "big":
		return dbus.MakeVariant(HostileA11yName + strings.Repeat("N", 1<<20)), nil
	case "a", "b":
		return dbus.MakeVariant("cycle-" + p), nil
	}
	return dbus.MakeVariant(p), nil
}
