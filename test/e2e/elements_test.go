package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

// openSessionLimb opens a VNC limb on a desktop session whose SSH sidecar
// reaches its accessibility bus, and takes its lease.
func openSessionLimb(t *testing.T) (*testbed.DesktopSession, *client.Client, wire.Target) {
	t.Helper()
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Cookie: true})
	t.Setenv("HOME", s.SSHD.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	hs, err := hosts.Open(filepath.Join(t.TempDir(), "hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs}, nopWriter{})
	c := dial(t, d, "agent")
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "session", Protocol: "vnc", Address: "127.0.0.1", Port: s.Port, SSHPort: s.SSHD.Port, SSHUser: s.SSHD.User}})
	r := must(t, c, wire.OpenArgs{HostID: "session", Perceive: boolp(true)})
	tg := wire.Target{LimbID: r.LimbID}
	must(t, c, wire.WaitArgs{Target: tg, Until: "connected", TimeoutMs: intp(20000)})
	must(t, c, wire.ControlArgs{Target: tg, Action: "acquire"})
	return s, c, tg
}

// inspectOne finds exactly one element through dvvd.
func inspectOne(t *testing.T, c *client.Client, tg wire.Target, window, role, name string) wire.Element {
	t.Helper()
	var els []wire.Element
	testbed.Eventually(t, 15*time.Second, role+" "+name+" in "+window, func() bool {
		r, err := do(t, c, wire.InspectArgs{Target: tg, Window: window, Role: role, NameContains: name})
		if err != nil || r.Inspect == nil {
			return false
		}
		els = r.Inspect.Elements
		return len(els) == 1
	})
	return els[0]
}

// printed waits until a program's output (its log) holds line.
func printed(t *testing.T, p *testbed.Proc, line string) {
	t.Helper()
	testbed.Eventually(t, 15*time.Second, "the program printing "+line, func() bool {
		b, _ := os.ReadFile(p.Log)
		for _, l := range strings.Split(string(b), "\n") {
			if l == line {
				return true
			}
		}
		return false
	})
}

// Text set in a GTK entry through dvvd is read back exactly, shows on the
// screen dvvd mirrors (read by OCR), and is what the program itself prints
// on OK; the entry's bounds are the framebuffer's coordinates of the X
// window the window manager placed.
func TestElementSetTextIsReadBackShownAndPrinted(t *testing.T) {
	s, c, tg := openSessionLimb(t)
	p, xwin := s.Program(t, "elbed", "zenity", "--entry", "--title", "elbed", "--text", "Your name")
	entry := inspectOne(t, c, tg, "elbed", "text", "your name")
	// Ground truth from the X server: the client area's and the frame's
	// absolute bounds (xwininfo; the frame holds the manager's title bar).
	cx, cy, cw, ch := xwininfo(t, s, xwin)
	if c := entry.Center; c.X < cx || c.X >= cx+cw || c.Y < cy || c.Y >= cy+ch {
		t.Fatalf("entry centre %v is outside the X window %s's client area %d,%d %dx%d", c, xwin, cx, cy, cw, ch)
	}
	// The window named by its X id (as windows gives it) is the same one,
	// and its bounds are the X frame's.
	xid, _ := strconv.ParseUint(xwin, 10, 32)
	byX := must(t, c, wire.InspectArgs{Target: tg, Window: fmt.Sprintf("0x%x", xid), Role: "text"}).Inspect
	if len(byX.Windows) != 1 || byX.Windows[0].Title != "elbed" || len(byX.Elements) != 1 || byX.Elements[0].ID != entry.ID {
		t.Fatalf("inspect of X window 0x%x: %+v", xid, byX)
	}
	var fl, fr, top, bottom int
	ext := s.Run(t, "xprop", "-id", xwin, "_NET_FRAME_EXTENTS")
	if _, err := fmt.Sscanf(ext[strings.Index(ext, "=")+1:], " %d, %d, %d, %d", &fl, &fr, &top, &bottom); err != nil {
		t.Fatalf("frame extents %q: %v", ext, err)
	}
	frame := wire.Region{X: cx - fl, Y: cy - top, W: cw + fl + fr, H: ch + top + bottom}
	if w := byX.Windows[0].Bounds; w != frame {
		t.Fatalf("the accessible window's bounds %+v are not the X frame's %+v", w, frame)
	}
	const text = "Structure 4217"
	r := must(t, c, wire.ElementArgs{Target: tg, Action: "set-text", Element: entry.ID, Text: strp(text)})
	if !r.Element.Verified || r.Element.Text != text {
		t.Fatalf("set-text answered %+v", r.Element)
	}
	// Focus moves to OK (read back), so the entry's caret and focus ring
	// no longer cross the text OCR reads from the mirror.
	ok := inspectOne(t, c, tg, "elbed", "push button", "OK")
	if r := must(t, c, wire.ElementArgs{Target: tg, Action: "focus", Element: ok.ID}); !r.Element.Verified {
		t.Fatalf("focus answered %+v", r.Element)
	}
	testbed.Eventually(t, 15*time.Second, "the text on the mirrored screen", func() bool {
		f, err := do(t, c, wire.FindArgs{Target: tg, Text: strp(text)})
		return err == nil && f.Find != nil && len(f.Find.Matches) > 0
	})
	must(t, c, wire.ElementArgs{Target: tg, Action: "invoke", Element: ok.ID})
	printed(t, p, text)
}

// An id read before its window moved is refused, coded, with what to do;
// a fresh inspect gives an id that works.
func TestElementIDRefusedAfterItsWindowMoves(t *testing.T) {
	s, c, tg := openSessionLimb(t)
	_, xwin := s.Program(t, "movebed", "zenity", "--entry", "--title", "movebed", "--text", "Where")
	entry := inspectOne(t, c, tg, "movebed", "text", "where")
	s.Xdotool(t, "windowmove", "--sync", xwin, "17", "23")
	testbed.Eventually(t, 15*time.Second, "the move seen on the accessibility bus", func() bool {
		e := inspectOne(t, c, tg, "movebed", "text", "where")
		return e.Bounds != entry.Bounds
	})
	_, err := do(t, c, wire.ElementArgs{Target: tg, Action: "set-text", Element: entry.ID, Text: strp("x")})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.StaleElement || !strings.Contains(we.Next, "inspect") {
		t.Fatalf("an id from before the move: %v, want STALE_ELEMENT saying to inspect again", err)
	}
	fresh := inspectOne(t, c, tg, "movebed", "text", "where")
	if r := must(t, c, wire.ElementArgs{Target: tg, Action: "set-text", Element: fresh.ID, Text: strp("here")}); !r.Element.Verified {
		t.Fatalf("set-text with a fresh id: %+v", r.Element)
	}
}

// A password field is set, and the program gets the secret, but no answer
// line dvvd writes (inspect, set-text, read) carries it.
func TestElementProtectedFieldNeverInAnAnswer(t *testing.T) {
	s, c, tg := openSessionLimb(t)
	p, _ := s.Program(t, "pwbed", "zenity", "--forms", "--title", "pwbed", "--add-password", "Secret", "--add-combo", "Color", "--combo-values", "red|green|blue")
	pw := inspectOne(t, c, tg, "pwbed", "password text", "secret")
	const secret = "hunter2-s3cret"
	r, err := do(t, c, wire.ElementArgs{Target: tg, Action: "set-text", Element: pw.ID, Text: strp(secret)})
	if err != nil || !r.Element.Verified || r.Element.Text != "" {
		t.Fatalf("set-text on a password field: %+v, %v", r, err)
	}
	line, _ := json.Marshal(r)
	if strings.Contains(string(line), secret) {
		t.Fatalf("the answer carries the secret: %s", line)
	}
	if _, err = do(t, c, wire.ElementArgs{Target: tg, Action: "read", Element: pw.ID}); client.Code(err) != wire.Unsupported || strings.Contains(err.Error(), secret) {
		t.Fatalf("read of a password field: %v, want UNSUPPORTED", err)
	}
	all, err := do(t, c, wire.InspectArgs{Target: tg, Window: "pwbed"})
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := json.Marshal(all); strings.Contains(string(line), secret) {
		t.Fatalf("inspect carries the secret: %s", line)
	}
	// The combo's option chosen through dvvd is the program's too.
	green := inspectOne(t, c, tg, "pwbed", "menu item", "green")
	if r := must(t, c, wire.ElementArgs{Target: tg, Action: "select", Element: green.ID}); !r.Element.Verified {
		t.Fatalf("select: %+v", r.Element)
	}
	ok := inspectOne(t, c, tg, "pwbed", "push button", "OK")
	must(t, c, wire.ElementArgs{Target: tg, Action: "invoke", Element: ok.ID})
	printed(t, p, secret+"|green")
}

// Waits on the accessibility tree: an element that appears after the wait
// began, an element's text set by another caller, and the element gone
// once its program closed the window.
func TestElementWaits(t *testing.T) {
	s, c, tg := openSessionLimb(t)
	appeared := make(chan *wire.WaitResult, 1)
	go func() {
		r, err := do(t, c, wire.WaitArgs{Target: tg, Until: "element", Window: "waitbed", Role: "push button", NameContains: "OK", TimeoutMs: intp(20000)})
		if err != nil {
			t.Error(err)
			appeared <- nil
			return
		}
		appeared <- r.Wait
	}()
	// The program starts while the wait polls (usually after its first
	// look found no window waitbed); either way it answers the element.
	time.Sleep(300 * time.Millisecond)
	p, _ := s.Program(t, "waitbed", "zenity", "--entry", "--title", "waitbed", "--text", "Answer")
	w := <-appeared
	if w == nil || !w.Settled || len(w.Elements) != 1 || w.Elements[0].Role != "push button" {
		t.Fatalf("until element answered %+v", w)
	}
	ok := w.Elements[0]
	entry := inspectOne(t, c, tg, "waitbed", "text", "answer")
	typed := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, err := do(t, c, wire.ElementArgs{Target: tg, Action: "set-text", Element: entry.ID, Text: strp("forty two")})
		typed <- err
	}()
	r := must(t, c, wire.WaitArgs{Target: tg, Until: "text-equals", Element: entry.ID, Text: strp("forty two"), TimeoutMs: intp(20000)})
	if err := <-typed; err != nil {
		t.Fatal(err)
	}
	if !r.Wait.Settled || len(r.Wait.Elements) != 1 || r.Wait.Elements[0].Text != "forty two" {
		t.Fatalf("until text-equals answered %+v", r.Wait)
	}
	must(t, c, wire.ElementArgs{Target: tg, Action: "invoke", Element: ok.ID})
	printed(t, p, "forty two")
	g := must(t, c, wire.WaitArgs{Target: tg, Until: "element-gone", Window: "waitbed", Role: "push button", NameContains: "OK", TimeoutMs: intp(20000)})
	if !g.Wait.Settled {
		t.Fatalf("until element-gone answered %+v", g.Wait)
	}
}

// xwininfo answers a window's absolute bounds as the X server reports them.
func xwininfo(t *testing.T, s *testbed.DesktopSession, xwin string) (x, y, w, h int) {
	t.Helper()
	for _, line := range strings.Split(s.Run(t, "xwininfo", "-id", xwin), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			continue
		}
		switch k {
		case "Absolute upper-left X":
			x = n
		case "Absolute upper-left Y":
			y = n
		case "Width":
			w = n
		case "Height":
			h = n
		}
	}
	return x, y, w, h
}
