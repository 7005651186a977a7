package testbed

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Display is a running X server that tests can inspect and drive.
type Display struct {
	Num  int
	Dir  string // private scratch directory
	Proc *Proc
	Env  []string // more environment for programs on it (XAUTHORITY, a session bus)
}

// VNC is an X display reachable over RFB.
type VNC struct {
	*Display
	Port     int
	Addr     string // 127.0.0.1:port
	Password string // VncAuth password, "" for None
	Server   *Proc  // the RFB server process (Xvnc itself, or x11vnc)
}

// XvncOptions configure StartXvnc.
type XvncOptions struct {
	Width, Height int      // default 800x600
	Password      string   // non-empty: VncAuth with this password
	Extra         []string // more Xvnc arguments
	Port          int      // 0: pick a free one
}

// StartXvnc starts TigerVNC's Xvnc on 127.0.0.1 with a fresh display.
func StartXvnc(t testing.TB, o XvncOptions) *VNC {
	t.Helper()
	Need(t, "Xvnc")
	if o.Width == 0 {
		o.Width, o.Height = 800, 600
	}
	dir := t.TempDir()
	port := o.Port
	if port == 0 {
		port = FreePort(t)
	}
	args := []string{"-displayfd", "3", "-rfbport", strconv.Itoa(port), "-localhost", "-nolisten", "tcp",
		"-geometry", fmt.Sprintf("%dx%d", o.Width, o.Height), "-depth", "24", "-AlwaysShared", "-UseBlacklist=0"}
	if o.Password != "" {
		Need(t, "vncpasswd")
		pw := filepath.Join(dir, "passwd")
		cmd := exec.Command("vncpasswd", "-f")
		cmd.Stdin = strings.NewReader(o.Password + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("vncpasswd: %v", err)
		}
		if err := os.WriteFile(pw, out, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-SecurityTypes", "VncAuth", "-PasswordFile", pw)
	} else {
		args = append(args, "-SecurityTypes", "None")
	}
	args = append(args, o.Extra...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvnc", args...)
	cmd.ExtraFiles = []*os.File{w}
	p := Start(t, "Xvnc", cmd)
	w.Close()
	num := readDisplayFD(t, r, 10*time.Second)
	r.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	WaitTCP(t, addr, 10*time.Second)
	d := &Display{Num: num, Dir: dir, Proc: p}
	return &VNC{Display: d, Port: port, Addr: addr, Password: o.Password, Server: p}
}

// StartXvfb starts a bare Xvfb display (no RFB server).
func StartXvfb(t testing.TB, width, height int) *Display {
	t.Helper()
	Need(t, "Xvfb")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", width, height),
		"-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	p := Start(t, "Xvfb", cmd)
	w.Close()
	num := readDisplayFD(t, r, 10*time.Second)
	r.Close()
	return &Display{Num: num, Dir: t.TempDir(), Proc: p}
}

// StartX11vnc starts Xvfb and x11vnc serving it without a password.
func StartX11vnc(t testing.TB, width, height int) *VNC {
	t.Helper()
	Need(t, "x11vnc")
	d := StartXvfb(t, width, height)
	port := FreePort(t)
	cmd := exec.Command("x11vnc", "-display", fmt.Sprintf(":%d", d.Num), "-rfbport", strconv.Itoa(port),
		"-localhost", "-nopw", "-forever", "-shared", "-noipv6", "-quiet")
	p := Start(t, "x11vnc", cmd)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	WaitTCP(t, addr, 15*time.Second)
	return &VNC{Display: d, Port: port, Addr: addr, Server: p}
}

// Command returns a command that runs on this display.
func (d *Display) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(displayEnv(d.Num), d.Env...)
	return cmd
}

// Run runs a program on the display and fails the test if it fails.
func (d *Display) Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := d.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// Background starts a long-lived client program (an xterm, a window) on the
// display, stopped at cleanup.
func (d *Display) Background(t testing.TB, name string, args ...string) *Proc {
	t.Helper()
	return Start(t, filepath.Base(name), d.Command(name, args...))
}

// Capture is the X server's own picture of the root window (ground truth).
func (d *Display) Capture(t testing.TB) *image.RGBA {
	t.Helper()
	Need(t, "import")
	out, err := d.Command("import", "-window", "root", "png:-").Output()
	if err != nil {
		t.Fatalf("import -window root: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("decode capture: %v", err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

// WaitStill waits until a window of each class is visible and the screen
// then holds still (two captures in a row are equal): a test that compares
// a mirror with the X server wants its clients drawn, not half drawn.
func (d *Display) WaitStill(t testing.TB, classes ...string) {
	t.Helper()
	Need(t, "xdotool")
	for _, class := range classes {
		Eventually(t, 10*time.Second, "a visible "+class+" window", func() bool {
			return d.Command("xdotool", "search", "--onlyvisible", "--class", class).Run() == nil
		})
	}
	last := d.Capture(t)
	Eventually(t, 10*time.Second, "the screen to hold still", func() bool {
		now := d.Capture(t)
		same := bytes.Equal(now.Pix, last.Pix)
		last = now
		return same
	})
}

// MouseLocation is where the X server says the pointer is.
func (d *Display) MouseLocation(t testing.TB) (x, y int) {
	t.Helper()
	Need(t, "xdotool")
	out := d.Run(t, "xdotool", "getmouselocation", "--shell")
	for _, line := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
		switch k {
		case "X":
			x, _ = strconv.Atoi(v)
		case "Y":
			y, _ = strconv.Atoi(v)
		}
	}
	return x, y
}

// CatTerm starts an xterm running `cat > file` (focused, at the top left)
// and returns the file's path. Bytes typed into the display end up there:
// no echo, no line editing, and Return arrives as a newline (icrnl), as in
// any shell.
func (d *Display) CatTerm(t testing.TB) string {
	t.Helper()
	Need(t, "xterm", "xdotool")
	out := filepath.Join(t.TempDir(), "typed")
	ready := out + ".ready"
	d.Background(t, "xterm", "-geometry", "80x24+0+0", "-fa", "DejaVu Sans Mono", "-fs", "11",
		"-e", "sh", "-c", fmt.Sprintf("stty -echo -icanon; touch %s; exec cat > %s", ready, out))
	WaitFile(t, ready, 15*time.Second)
	// Focus follows the pointer in a bare X server: put the pointer on it.
	Eventually(t, 10*time.Second, "xterm window", func() bool {
		o, err := d.Command("xdotool", "search", "--class", "xterm").Output()
		if err != nil || len(strings.Fields(string(o))) == 0 {
			return false
		}
		w := strings.Fields(string(o))[0]
		return d.Command("xdotool", "windowfocus", "--sync", w).Run() == nil
	})
	return out
}

// Resize changes the screen size with xrandr (Xvnc follows it). It picks a
// mode, so the pointer may travel the whole new screen; sizes without a
// mode fall back to --fb.
func (d *Display) Resize(t testing.TB, w, h int) {
	t.Helper()
	Need(t, "xrandr")
	size := fmt.Sprintf("%dx%d", w, h)
	if err := d.Command("xrandr", "-s", size).Run(); err != nil {
		d.Run(t, "xrandr", "--fb", size)
	}
}
