package e2e

import (
	"image"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/wire"
)

// xwindow is where the X server says a window (found by title) is.
func xwindow(t *testing.T, d *testbed.Display, title string) image.Rectangle {
	t.Helper()
	var r image.Rectangle
	testbed.Eventually(t, 10*time.Second, "window "+title, func() bool {
		out, err := d.Command("xdotool", "search", "--name", title, "getwindowgeometry", "--shell", "%@").Output()
		if err != nil {
			return false
		}
		v := map[string]int{}
		for _, line := range strings.Split(string(out), "\n") {
			k, s, _ := strings.Cut(strings.TrimSpace(line), "=")
			v[k], _ = strconv.Atoi(s)
		}
		r = image.Rect(v["X"], v["Y"], v["X"]+v["WIDTH"], v["Y"]+v["HEIGHT"])
		return !r.Empty()
	})
	return r
}

// TestRDPDesktopText: on FreeRDP's shadow server, a wait for a dialog's
// text settles once it is drawn, says where it is (inside the window the X
// server placed), and text-gone settles once the dialog is closed.
func TestRDPDesktopText(t *testing.T) {
	testbed.Need(t, "tesseract", "xmessage", "xdotool")
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600})
	c, id := openShadow(t, srv)
	srv.Run(t, "xsetroot", "-solid", "#204060")

	text := "Export finished without errors"
	done := make(chan *wiretest.Response, 1)
	go func() {
		r, err := do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: &text, TimeoutMs: intp(20000)})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	dialog := testbed.Start(t, "xmessage", srv.Command("xmessage", "-title", "dvvexport", "-geometry", "+220+180", "-buttons", "Close", text))
	r := <-done
	if r == nil || !r.Wait.Settled || len(r.Wait.Matches) != 1 {
		t.Fatalf("wait for the dialog: %+v", r)
	}
	win := xwindow(t, srv.Display, "dvvexport")
	m := r.Wait.Matches[0]
	if box := image.Rect(m.Box.X, m.Box.Y, m.Box.X+m.Box.W, m.Box.Y+m.Box.H); !box.In(win) || m.Generation != 1 {
		t.Fatalf("text read at %v (generation %d), the dialog is at %v", box, m.Generation, win)
	}
	f := must(t, c, wire.FindArgs{Target: wire.Target{LimbID: id}, Text: strp("Close")}).Find
	if len(f.Matches) != 1 || !image.Pt(f.Matches[0].Center.X, f.Matches[0].Center.Y).In(win) {
		t.Fatalf("find Close: %+v (dialog at %v)", f, win)
	}
	// The same question again: nothing changed, nothing is recognised.
	if f := must(t, c, wire.FindArgs{Target: wire.Target{LimbID: id}, Text: strp("Close")}).Find; !f.Cached || len(f.Matches) != 1 {
		t.Fatalf("find on an unchanged screen: %+v", f)
	}
	// Press the button where find says it is: the dialog closes.
	must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.25)})
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "click", X: intp(f.Matches[0].Center.X), Y: intp(f.Matches[0].Center.Y), Generation: u64p(f.Generation)})
	testbed.Eventually(t, 10*time.Second, "the dialog to close", dialog.Exited)
	w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text-gone", Text: &text, TimeoutMs: intp(20000)})
	if !w.Wait.Settled {
		t.Fatalf("text-gone after the dialog closed: %+v", w.Wait)
	}
	// A language is a list of codes, never a path.
	if _, err := do(t, c, wire.FindArgs{Target: wire.Target{LimbID: id}, Lang: "../x", Text: strp("a")}); err == nil {
		t.Fatal("a path as language was accepted")
	}
}
