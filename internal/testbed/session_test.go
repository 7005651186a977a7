package testbed

import (
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// The bed itself: openbox manages a zenity window (wmctrl lists it) and
// zenity joins the accessibility bus the root window names.
func TestDesktopSessionHasWindowsAndAccessibility(t *testing.T) {
	s := StartDesktopSession(t, DesktopSessionOptions{Cookie: true})
	_, win := s.Program(t, "bedcheck", "zenity", "--entry", "--title", "bedcheck", "--text", "Your name")
	if !strings.Contains(s.Wmctrl(t, "-l"), "bedcheck") {
		t.Fatalf("wmctrl does not list the zenity window %s", win)
	}
	conn, err := dbus.Dial(s.A11yBus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	Eventually(t, 10*time.Second, "zenity on the accessibility bus", func() bool {
		var n int32
		v, err := conn.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root").
			GetProperty("org.a11y.atspi.Accessible.ChildCount")
		if err != nil {
			return false
		}
		n, _ = v.Value().(int32)
		return n > 0
	})
}
