package system_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/dvvhq/dvv/internal/testbed"
)

// hostileWMTitle would retitle and clear the terminal that printed it and
// carries bytes that are not UTF-8; a megabyte of filler follows it.
const hostileWMTitle = "evil\x1b]0;pwned\x07\x1b[2J\xff\xfe\xc2\x9b31m"

// mapHostileWindow is another program on the display: it maps one
// window titled hostileWMTitle and a megabyte after it (appended in
// pieces: a request holds at most 256 KiB without BIG-REQUESTS).
func mapHostileWindow(t *testing.T, display int) (*xgb.Conn, xproto.Window) {
	t.Helper()
	x, err := xgb.NewConnDisplay(fmt.Sprintf(":%d", display))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	scr := xproto.Setup(x).DefaultScreen(x)
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(x, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return r.Atom
	}
	name, utf8String := atom("_NET_WM_NAME"), atom("UTF8_STRING")
	id, err := xproto.NewWindowId(x)
	if err != nil {
		t.Fatal(err)
	}
	xproto.CreateWindow(x, scr.RootDepth, id, scr.Root, 10, 10, 64, 64, 0, xproto.WindowClassInputOutput, scr.RootVisual, 0, nil)
	xproto.ChangeProperty(x, xproto.PropModeReplace, id, name, utf8String, 8, uint32(len(hostileWMTitle)), []byte(hostileWMTitle))
	chunk := []byte(strings.Repeat("A", 128<<10))
	for range 8 {
		xproto.ChangeProperty(x, xproto.PropModeAppend, id, name, utf8String, 8, uint32(len(chunk)), chunk)
	}
	xproto.MapWindow(x, id)
	// The X server holds the whole megabyte (ground truth, read back).
	r, err := xproto.GetProperty(x, false, id, name, xproto.GetPropertyTypeAny, 0, 1).Reply()
	if err != nil || r.BytesAfter < 1<<20 {
		t.Fatalf("the X server holds a title of 4+%d bytes (%v), want a megabyte", r.BytesAfter, err)
	}
	return x, id
}

// managedBy is whether the window manager lists id in _NET_CLIENT_LIST.
func managedBy(t *testing.T, x *xgb.Conn, id xproto.Window) bool {
	a, err := xproto.InternAtom(x, false, uint16(len("_NET_CLIENT_LIST")), "_NET_CLIENT_LIST").Reply()
	if err != nil {
		t.Fatal(err)
	}
	r, err := xproto.GetProperty(x, false, xproto.Setup(x).DefaultScreen(x).Root, a.Atom, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+4 <= len(r.Value); i += 4 {
		if xproto.Window(xgb.Get32(r.Value[i:])) == id {
			return true
		}
	}
	return false
}

// TestHostileWindowTitleIsBounded: a program on the desktop titles its
// window with a megabyte carrying terminal escapes and bytes that are not
// UTF-8. Through dvvd and the sidecar, `dvv windows` and `screen
// --windows` answer the title cut to 1024 bytes of valid UTF-8, and the
// CLI's human output writes no raw escape to the terminal. (The bound on
// the number of windows is proven in pkg/xwin, where a test can lower it.)
func TestHostileWindowTitleIsBounded(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Width: 640, Height: 480, NoA11y: true})
	x, id := mapHostileWindow(t, s.Num)
	testbed.Eventually(t, 15*time.Second, "openbox to manage the hostile window", func() bool { return managedBy(t, x, id) })
	d := startDaemonIn(t, "", s.SSHD.Home)
	limb := openDesktopWithSidecar(t, d, s)

	l := response(t, d.must("windows", limb, "--json")).Windows
	var title string
	for _, w := range l.Windows {
		if strings.HasPrefix(w.Title, "evil") {
			title = w.Title
		}
	}
	if !strings.HasPrefix(title, "evil\x1b]0;pwned\x07\x1b[2J\ufffd\ufffd\u009b31mAAA") {
		t.Fatalf("the hostile window's title reads %q…, want its escapes kept in JSON and its invalid bytes as U+FFFD", title[:min(len(title), 40)])
	}
	if len(title) > 1024 || !utf8.ValidString(title) {
		t.Errorf("the hostile title is %d bytes (valid UTF-8: %v), want at most 1024 of UTF-8", len(title), utf8.ValidString(title))
	}
	if l.Omitted != 0 {
		t.Errorf("omitted %d windows of a few", l.Omitted)
	}

	human := d.must("windows", limb)
	if strings.ContainsAny(human.stdout+human.stderr, "\x1b\x07\u009b") {
		t.Errorf("the human output carries raw escapes: %q", human.stdout[:min(len(human.stdout), 300)])
	}
	if len(human.stdout) > 4096 {
		t.Errorf("the human list of a few windows is %d bytes", len(human.stdout))
	}

	scr := response(t, d.must("screen", limb, "--windows", "--out", t.TempDir()+"/s.png", "--json")).Screen
	for _, w := range scr.Windows {
		if len(w.Title) > 1024 {
			t.Errorf("screen --windows answered a title of %d bytes", len(w.Title))
		}
	}
}
