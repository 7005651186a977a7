package system_test

import (
	"image"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// xCapture is the X server's own picture of its root window (ImageMagick's
// import reads it over X, not through VNC).
func xCapture(t *testing.T, s *testbed.DesktopSession) *image.RGBA {
	t.Helper()
	testbed.Need(t, "import")
	path := filepath.Join(t.TempDir(), "root.png")
	s.Run(t, "import", "-window", "root", path)
	return readPNG(t, path)
}

// A window act is verified only when the window manager states it AND the
// mirror shows it: a window moved on the current workspace is verified,
// and the X server's own capture shows it where dvv's mirror does; a window
// the manager moves on another workspace is stated moved (xwininfo, wmctrl)
// but not drawn, so the answer is not verified and the note says the
// mirror disagreed; a limb opened without perceive has no mirror to agree.
func TestWindowActsAreCheckedAgainstTheMirror(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Cookie: true})
	_, shown := s.Program(t, "shown-window", "zenity", "--text-info", "--title", "shown-window")
	_, hidden := s.Program(t, "hidden-window", "zenity", "--text-info", "--title", "hidden-window")
	d := startDaemonIn(t, "", s.SSHD.Home)
	limb := openDesktopWithSidecar(t, d, s)
	d.must("control", "acquire", limb)
	d.must("wait", limb, "--until", "screen-stable", "--timeout", "10s")
	shownID, _ := strconv.ParseUint(shown, 10, 32)
	hiddenID, _ := strconv.ParseUint(hidden, 10, 32)

	// On the current workspace: both sides agree.
	act := response(t, d.must("window", limb, strconv.FormatUint(shownID, 10), "move", "300", "200", "--json")).Window
	if !act.Verified || act.Note != "" || act.Window.Frame.X != 300 || act.Window.Frame.Y != 200 {
		t.Fatalf("move on the current workspace: %+v", act)
	}
	x, y, w, h := xwininfo(t, s, shown)
	if x != act.Window.Client.X || y != act.Window.Client.Y {
		t.Fatalf("xwininfo puts the client at %d,%d; dvv said %+v", x, y, act.Window.Client)
	}
	d.must("wait", limb, "--until", "screen-stable", "--timeout", "10s")
	png := filepath.Join(t.TempDir(), "mirror.png")
	d.must("screen", limb, "--out", png)
	mirror, truth := readPNG(t, png), xCapture(t, s)
	cx, cy := x+w/2, y+h/2
	if lum(truth.At(cx, cy)) < 0x80 || truth.At(cx, cy) != mirror.At(cx, cy) {
		t.Fatalf("at the moved window's centre %d,%d the X server shows %v, the mirror %v", cx, cy, truth.At(cx, cy), mirror.At(cx, cy))
	}

	// On another workspace the manager moves it, nothing draws it.
	s.Wmctrl(t, "-i", "-r", "0x"+strconv.FormatUint(hiddenID, 16), "-t", "1")
	testbed.Eventually(t, 10e9, "wmctrl to list the window on workspace 1", func() bool {
		return wmctrlList(t, s)[hiddenID].desktop == 1
	})
	d.must("wait", limb, "--until", "screen-stable", "--timeout", "10s")
	act = response(t, d.must("window", limb, strconv.FormatUint(hiddenID, 10), "move", "40", "420", "--json")).Window
	if act.Verified || !strings.Contains(act.Note, "mirrored screen") || !strings.Contains(act.Note, "window manager states it") {
		t.Fatalf("move of a window on another workspace: %+v, want not verified with the mirror's side in the note", act)
	}
	// Ground truth: the manager did move it, and the X server does not draw it there.
	hx, hy, hw, hh := xwininfo(t, s, hidden)
	if hx != act.Window.Client.X || hy != act.Window.Client.Y || act.Window.Frame.X != 40 || act.Window.Frame.Y != 420 {
		t.Fatalf("xwininfo puts the hidden client at %d,%d; dvv said %+v", hx, hy, act.Window)
	}
	truth = xCapture(t, s)
	if c := truth.At(hx+hw/2, hy+hh/2); lum(c) != 0 {
		t.Fatalf("the X server draws %v at the hidden window's centre, not the black root", c)
	}

	// A limb opened without perceive keeps no mirror: the manager's word
	// alone is not verified, and the note says how to get the mirror.
	d.must("close", limb)
	bare := response(t, d.must("open", "desk", "--json")).LimbID
	d.must("wait", bare, "--until", "connected", "--timeout", "20s")
	d.must("control", "acquire", bare)
	act = response(t, d.must("window", bare, strconv.FormatUint(shownID, 10), "move", "120", "90", "--json")).Window
	if act.Verified || !strings.Contains(act.Note, "perceive") {
		t.Fatalf("move on a limb without a mirror: %+v, want not verified, saying to open with perceive", act)
	}
	if x, y, _, _ := xwininfo(t, s, shown); x != act.Window.Client.X || y != act.Window.Client.Y {
		t.Fatalf("xwininfo puts the client at %d,%d; dvv said %+v", x, y, act.Window.Client)
	}
}
