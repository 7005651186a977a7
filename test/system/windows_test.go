package system_test

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/cli"
	"github.com/dvvhq/dvv/pkg/wire"
)

// openDesktopWithSidecar saves the session's VNC server with its sshd as
// the SSH sidecar and opens it.
func openDesktopWithSidecar(t *testing.T, d *daemon, s *testbed.DesktopSession) string {
	t.Helper()
	d.must("hosts", "add", "desk", "--address", "127.0.0.1", "--port", strconv.Itoa(s.Port), "--protocol", "vnc",
		"--ssh-port", strconv.Itoa(s.SSHD.Port), "--ssh-user", s.SSHD.User)
	r := response(t, d.must("open", "desk", "--perceive", "--json"))
	return r.LimbID
}

// wmctrlWindow is one line of `wmctrl -l -p -G`: the window manager's own
// list, read by another EWMH client on the X server itself.
type wmctrlWindow struct {
	id                 uint64
	desktop, pid, w, h int
	title              string
}

func wmctrlList(t *testing.T, s *testbed.DesktopSession) map[uint64]wmctrlWindow {
	t.Helper()
	out := map[uint64]wmctrlWindow{}
	for _, line := range strings.Split(strings.TrimSpace(s.Wmctrl(t, "-l", "-p", "-G")), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		var w wmctrlWindow
		w.id, _ = strconv.ParseUint(f[0], 0, 32)
		w.desktop, _ = strconv.Atoi(f[1])
		w.pid, _ = strconv.Atoi(f[2])
		w.w, _ = strconv.Atoi(f[5])
		w.h, _ = strconv.Atoi(f[6])
		w.title = strings.Join(f[8:], " ")
		out[w.id] = w
	}
	return out
}

// xwininfo answers the X server's absolute position and size of a window.
func xwininfo(t *testing.T, s *testbed.DesktopSession, id string) (x, y, w, h int) {
	t.Helper()
	for _, line := range strings.Split(s.Run(t, "xwininfo", "-id", id), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(strings.TrimSpace(v))
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
	return
}

func findWindow(t *testing.T, l *wire.WindowList, title string) wire.Window {
	t.Helper()
	for _, w := range l.Windows {
		if w.Title == title {
			return w
		}
	}
	t.Fatalf("no window titled %q in %+v", title, l.Windows)
	return wire.Window{}
}

// The windows of a real desktop (Xvnc, openbox, zenity) read over the VNC
// limb's SSH sidecar match what wmctrl and xwininfo read on the X server;
// activate, move, resize, close and a workspace switch are seen by the
// window manager (xdotool, xwininfo, wmctrl, xprop).
func TestWindowsOverTheSidecarMatchTheWindowManager(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Cookie: true})
	alphaProc, alpha := s.Program(t, "alpha-window", "zenity", "--text-info", "--title", "alpha-window")
	betaProc, beta := s.Program(t, "beta-window", "zenity", "--info", "--title", "beta-window", "--text", "beta")
	d := startDaemonIn(t, "", s.SSHD.Home)
	limb := openDesktopWithSidecar(t, d, s)

	sig := response(t, d.must("signals", limb, "--json")).Signals
	if sig[wire.SigWindowStructure].State != wire.SignalLive || sig[wire.SigAccessibility].State != wire.SignalLive {
		t.Fatalf("signals on a desktop with a sidecar: %+v", sig)
	}

	list := response(t, d.must("windows", limb, "--json")).Windows
	truth := wmctrlList(t, s)
	if len(list.Windows) != len(truth) {
		t.Fatalf("dvv lists %d windows, wmctrl %d: %+v vs %+v", len(list.Windows), len(truth), list.Windows, truth)
	}
	for _, w := range list.Windows {
		id, err := strconv.ParseUint(w.ID, 0, 32)
		if err != nil {
			t.Fatalf("window id %q", w.ID)
		}
		g, ok := truth[id]
		if !ok || g.title != w.Title || g.pid != w.PID || g.desktop != w.Workspace || g.w != w.Client.W || g.h != w.Client.H {
			t.Errorf("dvv %+v, wmctrl %+v", w, g)
		}
		x, y, cw, ch := xwininfo(t, s, w.ID)
		if x != w.Client.X || y != w.Client.Y || cw != w.Client.W || ch != w.Client.H {
			t.Errorf("window %s client %+v, xwininfo %d,%d %dx%d", w.ID, w.Client, x, y, cw, ch)
		}
	}
	if list.Size.W != 1024 || list.Size.H != 768 {
		t.Errorf("screen %+v", list.Size)
	}
	if out := d.must("windows", limb); !strings.Contains(out.stdout, "alpha-window") || !strings.Contains(out.stdout, "Zenity") ||
		!strings.Contains(out.stderr, "window manager Openbox") {
		t.Errorf("dvv windows for people: %v", out)
	}
	a := findWindow(t, list, "alpha-window")
	if a.Class != "Zenity" || a.PID != alphaProc.Cmd.Process.Pid {
		t.Errorf("alpha %+v (zenity's pid %d)", a, alphaProc.Cmd.Process.Pid)
	}

	// Acting on windows needs the lease, as input does.
	wantExit(t, d.dvv("window", limb, a.ID, "activate"), wire.ExitLease, wire.LeaseNotHeld)
	d.must("control", "acquire", limb)

	// Activate alpha (beta, started last, has the focus).
	r := d.must("window", limb, a.ID, "activate", "--json")
	if act := response(t, r).Window; !act.Verified || !act.Window.Focused {
		t.Fatalf("activate: %+v", act)
	}
	if got := s.Xdotool(t, "getactivewindow"); got != alpha {
		t.Fatalf("xdotool getactivewindow %s, alpha is %s", got, alpha)
	}

	// Move alpha's frame to 100,120: the client lands inside the frame's extents.
	act := response(t, d.must("window", limb, a.ID, "move", "100", "120", "--json")).Window
	if !act.Verified || act.Window.Frame.X != 100 || act.Window.Frame.Y != 120 {
		t.Fatalf("move: %+v", act)
	}
	x, y, _, _ := xwininfo(t, s, alpha)
	if x != act.Window.Client.X || y != act.Window.Client.Y || x < 100 || y < 120 {
		t.Fatalf("xwininfo puts alpha's client at %d,%d; dvv said %+v", x, y, act.Window.Client)
	}

	// The layout beside the picture agrees with the picture: at half
	// scale alpha's frame is at 50,60 in image pixels, the mirror shows
	// the window there (light pixels) and Xvnc's black root beside it.
	d.must("wait", limb, "--until", "screen-stable", "--timeout", "10s")
	png := filepath.Join(t.TempDir(), "layout.png")
	scr := response(t, d.must("screen", limb, "--windows", "--scale", "0.5", "--out", png, "--json")).Screen
	sa := findScreenWindow(t, scr, act.Window.ID)
	if sa.Frame != act.Window.Frame || !sa.Visible || sa.Image.X != 50 || sa.Image.Y != 60 ||
		sa.Image.W != (act.Window.Frame.W+1)/2 || sa.Image.H != (act.Window.Frame.H+1)/2 {
		t.Fatalf("screen --windows: %+v; window %+v", sa, act.Window)
	}
	pic := readPNG(t, png)
	inside := pic.At(sa.Image.X+sa.Image.W/2, sa.Image.Y+sa.Image.H/2)
	outside := pic.At(sa.Image.X-4, sa.Image.Y+sa.Image.H/2)
	if lum(inside) < 0x80 || lum(outside) != 0 {
		t.Fatalf("the picture does not show alpha where the layout says: inside %v, outside %v", inside, outside)
	}

	// Resize alpha's client area.
	act = response(t, d.must("window", limb, a.ID, "resize", "420", "260", "--json")).Window
	if !act.Verified {
		t.Fatalf("resize: %+v", act)
	}
	if _, _, w, h := xwininfo(t, s, alpha); w != 420 || h != 260 {
		t.Fatalf("xwininfo says %dx%d after resize 420x260", w, h)
	}

	// beta, a message box, keeps one size (its minimum is its maximum):
	// not verified, and the answer says why.
	act = response(t, d.must("window", limb, beta, "resize", "420", "260", "--json")).Window
	if act.Verified || !strings.Contains(act.Note, "minimum size") || act.Window.Client.W == 420 {
		t.Fatalf("resize of a fixed-size window: %+v", act)
	}

	// Workspaces: openbox keeps several; switch to the second.
	ws := response(t, d.must("workspaces", limb, "--json")).Workspaces
	if ws.Count < 2 {
		t.Fatalf("workspaces %+v", ws)
	}
	ws = response(t, d.must("workspaces", limb, "1", "--json")).Workspaces
	if !ws.Verified || ws.Current != 1 {
		t.Fatalf("switch: %+v", ws)
	}
	if out := s.Run(t, "xprop", "-root", "_NET_CURRENT_DESKTOP"); !strings.HasSuffix(strings.TrimSpace(out), "= 1") {
		t.Fatalf("xprop: %s", out)
	}
	d.must("workspaces", limb, "0")

	// Waits: alpha is there and active by title; a window no program
	// opened is not there within the deadline (not settled, not an error).
	d.must("wait", limb, "--until", "window-active", "--window", "alpha-win", "--timeout", "5s")
	if r := d.dvv("wait", limb, "--until", "window", "--window", "no-such-window", "--timeout", "300ms"); r.code != cli.ExitNotSettled {
		t.Fatalf("wait for a window nobody opens: %v", r)
	}
	// A window that opens later is waited for: the wait answers once
	// wmctrl could list it too.
	s.Background(t, "zenity", "--info", "--title", "gamma-window", "--text", "late")
	w := response(t, d.must("wait", limb, "--until", "window", "--window", "gamma-window", "--timeout", "15s", "--json")).Wait
	if !w.Settled || !strings.Contains(w.Detail, "gamma-window") || !strings.Contains(s.Wmctrl(t, "-l"), "gamma-window") {
		t.Fatalf("wait for gamma: %+v", w)
	}

	// Close beta: the program ends and wmctrl no longer lists it; a
	// wait for it to be gone by its id settles at once.
	act = response(t, d.must("window", limb, beta, "close", "--json")).Window
	if !act.Verified || act.Window != nil {
		t.Fatalf("close: %+v", act)
	}
	betaID, _ := strconv.ParseUint(beta, 10, 32)
	if _, still := wmctrlList(t, s)[betaID]; still {
		t.Fatal("wmctrl still lists beta after close")
	}
	testbed.Eventually(t, 5e9, "zenity (beta) to exit", betaProc.Exited)
	d.must("wait", limb, "--until", "window-gone", "--window", fmt.Sprintf("0x%x", betaID), "--timeout", "2s")

	// Bad input: a window that is not there, a malformed id.
	wantExit(t, d.dvv("window", limb, "0x1", "activate"), wire.ExitGone, wire.NotFound)
	wantExit(t, d.dvv("window", limb, "nonsense", "close"), wire.ExitUsage, wire.BadRequest)
	d.must("ping")
}

// Where there is no structure to read, signals says absent with the
// reason and windows refuses with STRUCTURE_UNAVAILABLE: a VNC limb whose
// sidecar port has no SSH server, and an RDP limb.
func TestWindowsAbsentWithoutSidecarAndOnRDP(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{})
	shadow := testbed.StartShadow(t, testbed.ShadowOptions{Width: 320, Height: 240})
	d := startDaemon(t, "")
	d.must("hosts", "add", "bare", "--address", "127.0.0.1", "--port", strconv.Itoa(v.Port), "--protocol", "vnc",
		"--ssh-port", strconv.Itoa(testbed.FreePort(t)))
	vnc := response(t, d.must("open", "bare", "--perceive", "--json")).LimbID
	sig := response(t, d.must("signals", vnc, "--json")).Signals
	for _, name := range []string{wire.SigWindowStructure, wire.SigAccessibility} {
		if s := sig[name]; s.State != wire.SignalAbsent || !strings.Contains(s.Reason, "no SSH sidecar") {
			t.Errorf("VNC without a sidecar: %s %+v", name, s)
		}
	}
	r := d.dvv("windows", vnc)
	wantExit(t, r, wire.ExitUnsupported, wire.NoStructure)
	// screen --windows still answers the picture, and says why no layout.
	d.must("wait", vnc, "--until", "screen-stable", "--timeout", "10s")
	scr := response(t, d.must("screen", vnc, "--windows", "--out", filepath.Join(t.TempDir(), "s.png"), "--json")).Screen
	if scr.Path == "" || scr.Windows != nil || !strings.Contains(scr.WindowsAbsent, "no SSH sidecar") {
		t.Errorf("screen --windows without a sidecar: %+v", scr)
	}

	// Opened by address, with no sidecar saved: signals does not dial
	// port 22 by itself, and says how to save one.
	v2 := testbed.StartXvnc(t, testbed.XvncOptions{})
	plain := response(t, d.must("open", "127.0.0.1::"+strconv.Itoa(v2.Port), "--protocol", "vnc", "--json")).LimbID
	sig = response(t, d.must("signals", plain, "--json")).Signals
	if s := sig[wire.SigWindowStructure]; s.State != wire.SignalAbsent || !strings.Contains(s.Reason, "--ssh-port") {
		t.Errorf("VNC opened by address: %+v", s)
	}

	// The shadow server writes its certificate on first contact.
	wantExit(t, d.dvv("hosts", "trust", shadow.Addr, "--protocol", "rdp"), wire.ExitTrust, wire.HostKeyUnknown)
	d.must("hosts", "trust", shadow.Addr, "--protocol", "rdp", "--fingerprint", shadowCertFingerprint(t, filepath.Join(shadow.Dir, "shadow-home")))
	rdp := response(t, d.must("open", "rdp://"+shadow.Addr, "--json")).LimbID
	sig = response(t, d.must("signals", rdp, "--json")).Signals
	for _, name := range []string{wire.SigWindowStructure, wire.SigAccessibility} {
		if s := sig[name]; s.State != wire.SignalAbsent || !strings.Contains(s.Reason, "RDP") {
			t.Errorf("RDP limb: %s %+v", name, s)
		}
	}
	wantExit(t, d.dvv("workspaces", rdp), wire.ExitUnsupported, wire.NoStructure)
	d.must("ping")
}

func findScreenWindow(t *testing.T, s *wire.Screen, id string) wire.ScreenWindow {
	t.Helper()
	for _, w := range s.Windows {
		if w.ID == id {
			return w
		}
	}
	t.Fatalf("window %s not in screen's layout %+v (absent: %q)", id, s.Windows, s.WindowsAbsent)
	return wire.ScreenWindow{}
}

// lum is a pixel's brightest channel, 0..255.
func lum(c color.Color) uint32 {
	r, g, b, _ := c.RGBA()
	return max(r, g, b) >> 8
}

// An X server that stops answering (SIGSTOP) holds no handler: the
// client's deadline ends the request, dvvd keeps serving, and once the
// server runs again the next list answers over the same sidecar.
func TestWindowsFromAFrozenXServerEndWithTheClient(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{})
	s.Program(t, "frozen-check", "zenity", "--info", "--title", "frozen-check", "--text", "x")
	d := startDaemonIn(t, "", s.SSHD.Home)
	limb := openDesktopWithSidecar(t, d, s)
	d.must("windows", limb)
	s.Proc.Freeze(t)
	r := d.dvv("--timeout", "2s", "windows", limb)
	wantExit(t, r, wire.ExitConnection, wire.Timeout)
	d.must("ping")
	// The handler itself ended with the client, while the server is still
	// stopped: history has the list's outcome.
	testbed.Eventually(t, 5e9, "the windows op to end in history", func() bool {
		h := response(t, d.must("history", limb, "--json")).History
		last := h[len(h)-1]
		t.Logf("history: %+v", last)
		return last.Op == wire.OpWindows && last.Outcome != "" && last.Outcome != "ok"
	})
	s.Proc.Thaw()
	if l := response(t, d.must("windows", limb, "--json")).Windows; len(l.Windows) != 1 || l.Windows[0].Title != "frozen-check" {
		t.Fatalf("after the thaw: %+v", l)
	}
}
