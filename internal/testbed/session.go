package testbed

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// DesktopSession is a Linux desktop with structure: an Xvnc display with a
// session D-Bus, an EWMH window manager (openbox) and the accessibility bus
// (at-spi2-core's launcher, which sets the root window's AT_SPI_BUS), and a
// real sshd on 127.0.0.1 beside it as the desktop's SSH sidecar. GTK 3
// programs started with Program join the accessibility bus.
type DesktopSession struct {
	*VNC
	SSHD       *SSHD
	RuntimeDir string // XDG_RUNTIME_DIR of the session (0700)
	BusAddress string // DBUS_SESSION_BUS_ADDRESS
	A11yBus    string // the accessibility bus's address, as AT_SPI_BUS holds it
	XAuthority string // the client authority file ("" without a cookie)
	Cookie     string // MIT-MAGIC-COOKIE-1 in hex ("" without a cookie)
}

// DesktopSessionOptions configure StartDesktopSession.
type DesktopSessionOptions struct {
	Width, Height int  // default 1024x768
	Cookie        bool // the X server demands an MIT-MAGIC-COOKIE-1 (read from -auth FILE)
	NoA11y        bool // no accessibility bus (AT_SPI_BUS stays unset)
	NoWM          bool // no window manager
}

// StartDesktopSession starts the session and its sidecar sshd. Programs on
// it (Command, Run, Background, Program) get DISPLAY, XAUTHORITY,
// DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR. The limb's target is
// s.Addr (VNC) with SSHPort s.SSHD.Port, and the sidecar logs in as
// s.SSHD.User with s.SSHD.Home's key.
func StartDesktopSession(t testing.TB, o DesktopSessionOptions) *DesktopSession {
	t.Helper()
	Need(t, "Xvnc", "dbus-daemon", "openbox", "xdotool", "xprop", "/usr/libexec/at-spi-bus-launcher")
	if o.Width == 0 {
		o.Width, o.Height = 1024, 768
	}
	s := &DesktopSession{}
	dir := t.TempDir()
	var extra []string
	if o.Cookie {
		Need(t, "xauth")
		b := make([]byte, 16)
		rand.Read(b)
		s.Cookie = hex.EncodeToString(b)
		// The server reads every entry of its -auth file whatever display
		// number it names; the display number is known only once it runs.
		serverAuth := filepath.Join(dir, "server.auth")
		runXauth(t, serverAuth, "add", ":0", "MIT-MAGIC-COOKIE-1", s.Cookie)
		extra = append(extra, "-auth", serverAuth)
	}
	s.VNC = StartXvnc(t, XvncOptions{Width: o.Width, Height: o.Height, Extra: extra})
	if o.Cookie {
		s.XAuthority = filepath.Join(dir, "Xauthority")
		runXauth(t, s.XAuthority, "add", fmt.Sprintf(":%d", s.Num), "MIT-MAGIC-COOKIE-1", s.Cookie)
		s.Env = append(s.Env, "XAUTHORITY="+s.XAuthority)
	}
	s.RuntimeDir = filepath.Join(dir, "run")
	if err := os.MkdirAll(s.RuntimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	s.BusAddress = "unix:path=" + filepath.Join(s.RuntimeDir, "bus")
	Start(t, "dbus-session", exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address="+s.BusAddress))
	waitBus(t, s.BusAddress, 5*time.Second)
	s.Env = append(s.Env, "DBUS_SESSION_BUS_ADDRESS="+s.BusAddress, "XDG_RUNTIME_DIR="+s.RuntimeDir,
		"HOME="+filepath.Join(dir, "home"), "GDK_BACKEND=x11")
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o700); err != nil {
		t.Fatal(err)
	}
	if !o.NoWM {
		s.Background(t, "openbox", "--sm-disable")
		Eventually(t, 10*time.Second, "openbox to manage the screen", func() bool {
			out, err := s.Command("xprop", "-root", "_NET_SUPPORTING_WM_CHECK").Output()
			return err == nil && strings.Contains(string(out), "window id")
		})
	}
	if !o.NoA11y {
		s.Background(t, "/usr/libexec/at-spi-bus-launcher", "--launch-immediately")
		Eventually(t, 10*time.Second, "the accessibility bus (AT_SPI_BUS)", func() bool {
			out, err := s.Command("xprop", "-root", "AT_SPI_BUS").Output()
			if err != nil {
				return false
			}
			_, v, ok := strings.Cut(string(out), " = ")
			if !ok {
				return false
			}
			s.A11yBus = strings.Trim(strings.TrimSpace(v), `"`)
			return s.A11yBus != ""
		})
	}
	s.SSHD = StartSSHD(t)
	return s
}

func runXauth(t testing.TB, file string, args ...string) {
	t.Helper()
	if out, err := exec.Command("xauth", append([]string{"-f", file}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("xauth %v: %v\n%s", args, err, out)
	}
}

// Program starts a GTK 3 (or any X) program in the session and waits until
// it maps a window whose title holds title; it answers that window's id.
func (s *DesktopSession) Program(t testing.TB, title, name string, args ...string) (*Proc, string) {
	t.Helper()
	Need(t, name)
	p := s.Background(t, name, args...)
	return p, s.WaitWindow(t, title)
}

// WaitWindow waits for a visible window whose title holds title and
// answers its X id in decimal, as xdotool prints it.
func (s *DesktopSession) WaitWindow(t testing.TB, title string) string {
	t.Helper()
	var id string
	Eventually(t, 15*time.Second, "a window titled "+title, func() bool {
		out, err := s.Command("xdotool", "search", "--onlyvisible", "--name", title).Output()
		f := strings.Fields(string(out))
		if err != nil || len(f) == 0 {
			return false
		}
		id = f[0]
		return true
	})
	return id
}

// Xdotool runs xdotool on the session (ground truth of the X server and
// the window manager) and answers its output, trimmed.
func (s *DesktopSession) Xdotool(t testing.TB, args ...string) string {
	t.Helper()
	return strings.TrimSpace(s.Run(t, "xdotool", args...))
}

// Wmctrl runs wmctrl on the session and answers its output.
func (s *DesktopSession) Wmctrl(t testing.TB, args ...string) string {
	t.Helper()
	Need(t, "wmctrl")
	return s.Run(t, "wmctrl", args...)
}
