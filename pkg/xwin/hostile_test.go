package xwin_test

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/xwin"
)

// hostileTitle carries a terminal escape that would retitle and clear a
// terminal, bytes that are not UTF-8 and a C1 control; the window that
// bears it appends filler to a megabyte.
const hostileTitle = "evil\x1b]0;pwned\x07\x1b[2J\xff\xfe\xc2\x9b31m"

// mapWindows is another program on the display: it maps n top-level
// windows named w0…w(n-1), bottom to top, and names the topmost with
// hostileTitle and a megabyte after it (appended in pieces: a request
// holds at most 256 KiB without BIG-REQUESTS).
func mapWindows(t *testing.T, display, n int) *xgb.Conn {
	t.Helper()
	x, err := xgb.NewConnDisplay(fmt.Sprintf(":%d", display))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	scr := xproto.Setup(x).DefaultScreen(x)
	name := internAtom(t, x, "_NET_WM_NAME")
	utf8String := internAtom(t, x, "UTF8_STRING")
	for i := range n {
		id, err := xproto.NewWindowId(x)
		if err != nil {
			t.Fatal(err)
		}
		xproto.CreateWindow(x, scr.RootDepth, id, scr.Root, int16(i%200), int16(i%150), 8, 8, 0,
			xproto.WindowClassInputOutput, scr.RootVisual, 0, nil)
		title := fmt.Sprintf("w%d", i)
		if i == n-1 {
			title = hostileTitle
		}
		xproto.ChangeProperty(x, xproto.PropModeReplace, id, name, utf8String, 8, uint32(len(title)), []byte(title))
		if i == n-1 {
			chunk := []byte(strings.Repeat("\xe2\x82\xac", 40<<10)) // euros: a cut can land inside one
			for range 8 {
				xproto.ChangeProperty(x, xproto.PropModeAppend, id, name, utf8String, 8, uint32(len(chunk)), chunk)
			}
		}
		xproto.MapWindow(x, id)
	}
	if _, err := xproto.GetInputFocus(x).Reply(); err != nil { // every request above is done
		t.Fatal(err)
	}
	return x
}

func internAtom(t *testing.T, x *xgb.Conn, name string) xproto.Atom {
	t.Helper()
	r, err := xproto.InternAtom(x, false, uint16(len(name)), name).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return r.Atom
}

// managed is how many windows the window manager lists: ground truth
// from the X server itself.
func managed(t *testing.T, x *xgb.Conn) int {
	a := internAtom(t, x, "_NET_CLIENT_LIST")
	r, err := xproto.GetProperty(x, false, xproto.Setup(x).DefaultScreen(x).Root, a, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return int(r.ValueLen)
}

// TestHostileWindowListIsBounded: a program on the display maps more
// windows than a list holds (the bound is lowered so that a few dozen
// real windows under openbox reach it) and titles the topmost with a
// megabyte of escapes, invalid bytes and filler. The list holds the
// topmost MaxWindows and counts the rest; the title is at most MaxTitle
// bytes of valid UTF-8, cut on a character.
func TestHostileWindowListIsBounded(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Width: 640, Height: 480, NoA11y: true})
	const n, bound = 50, 40
	defer func(w, l int) { xwin.MaxWindows, xwin.MaxTitle = w, l }(xwin.MaxWindows, xwin.MaxTitle)
	xwin.MaxWindows = bound

	x := mapWindows(t, s.Num, n)
	testbed.Eventually(t, 30*time.Second, "openbox to manage the windows", func() bool { return managed(t, x) >= n })

	nc, err := net.Dial("unix", fmt.Sprintf("/tmp/.X11-unix/X%d", s.Num))
	if err != nil {
		t.Fatal(err)
	}
	c, err := xwin.Open(nc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ws, omitted, err := c.WindowsBounded()
	if err != nil {
		t.Fatal(err)
	}
	total := managed(t, x)
	if len(ws) != bound || omitted != total-bound {
		t.Fatalf("got %d windows and %d omitted of the %d managed; want %d and %d", len(ws), omitted, total, bound, total-bound)
	}
	for i, w := range ws[:len(ws)-1] {
		if want := fmt.Sprintf("w%d", n-bound+i); w.Title != want {
			t.Errorf("window %d is %q, want %q: the list must keep the topmost, in order", i, w.Title, want)
		}
	}
	top := ws[len(ws)-1].Title
	if !strings.HasPrefix(top, "evil\x1b]0;pwned\x07\x1b[2J\ufffd\ufffd\u009b31m") {
		t.Errorf("the hostile title reads %q…, want its escapes kept and its invalid bytes as U+FFFD", top[:min(len(top), 40)])
	}
	if len(top) > xwin.MaxTitle || len(top) < xwin.MaxTitle-3 || !utf8.ValidString(top) {
		t.Errorf("the hostile title is %d bytes (valid UTF-8: %v), want %d less at most 3 of valid UTF-8", len(top), utf8.ValidString(top), xwin.MaxTitle)
	}
}
