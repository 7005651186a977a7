package atspi

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

// desk is a real desktop session: Xvnc, a D-Bus session bus, the AT-SPI
// bus launcher (which sets the root window's AT_SPI_BUS) and GTK programs
// with the accessibility bridge.
type desk struct {
	vnc *testbed.VNC
	run string // XDG_RUNTIME_DIR, 0700
	bus string // the accessibility bus's socket path, read from the root window
}

func startDesk(t *testing.T) *desk {
	t.Helper()
	testbed.Need(t, "Xvnc", "dbus-daemon", "zenity", "xprop", "xdotool")
	launcher := "/usr/libexec/at-spi-bus-launcher"
	if _, err := os.Stat(launcher); err != nil {
		testbed.Unavailable(t, "%s is missing: install at-spi2-core (make testdeps)", launcher)
	}
	d := &desk{vnc: testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})}
	d.run = filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(d.run, 0o700); err != nil {
		t.Fatal(err)
	}
	testbed.Start(t, "dbus-daemon", exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile",
		"--address=unix:path="+filepath.Join(d.run, "bus")))
	testbed.Eventually(t, 15*time.Second, "the session bus", func() bool { _, err := os.Stat(filepath.Join(d.run, "bus")); return err == nil })
	testbed.Start(t, "at-spi-bus-launcher", d.cmd(launcher, "--launch-immediately"))
	testbed.Eventually(t, 15*time.Second, "AT_SPI_BUS on the root window", func() bool {
		out, _ := d.cmd("xprop", "-root", "AT_SPI_BUS").Output()
		s := string(out)
		i := strings.Index(s, "unix:path=")
		if i < 0 {
			return false
		}
		p := s[i+len("unix:path="):]
		if j := strings.IndexAny(p, ",\""); j >= 0 {
			p = p[:j]
		}
		d.bus = p
		return true
	})
	return d
}

func (d *desk) cmd(name string, args ...string) *exec.Cmd {
	c := d.vnc.Command(name, args...)
	c.Env = append(c.Env, "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(d.run, "bus"), "XDG_RUNTIME_DIR="+d.run,
		"NO_AT_BRIDGE=0", "GTK_A11Y=atspi")
	return c
}

func (d *desk) dial(ctx context.Context) (net.Conn, error) {
	return (&net.Dialer{}).DialContext(ctx, "unix", d.bus)
}

func (d *desk) client(t *testing.T) *Client {
	t.Helper()
	c, err := Dial(context.Background(), d.dial, strconv.Itoa(os.Getuid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// prog is a GTK program whose standard output is its own account of what
// the user chose.
type prog struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func (p *prog) Write(b []byte) (int, error) { p.mu.Lock(); defer p.mu.Unlock(); return p.out.Write(b) }

func (d *desk) start(t *testing.T, name string, args ...string) *prog {
	t.Helper()
	p := &prog{cmd: d.cmd(name, args...), done: make(chan struct{})}
	p.cmd.Stdout = p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	return p
}

// output waits for the program to exit and returns what it printed.
func (p *prog) output(t *testing.T) string {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the program did not exit")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// window waits for a top-level accessible titled title and walks it.
func window(t *testing.T, c *Client, title string) []Node {
	t.Helper()
	var nodes []Node
	testbed.Eventually(t, 15*time.Second, "window "+title, func() bool {
		ws, err := c.Windows(context.Background())
		if err != nil {
			return false
		}
		for _, w := range ws {
			if w.Name == title && w.Bounds.W > 0 {
				n, _, err := c.Walk(context.Background(), w.Ref)
				if err == nil && len(n) > 1 {
					nodes = n
					return true
				}
			}
		}
		return false
	})
	return nodes
}

func find(t *testing.T, nodes []Node, f Filter) (int, Node) {
	t.Helper()
	for i := range nodes {
		if f.Match(&nodes[i]) {
			return i, nodes[i]
		}
	}
	var b strings.Builder
	for _, n := range nodes {
		fmt.Fprintf(&b, "\n  %s %q %v", n.Role, n.Name, n.States)
	}
	t.Fatalf("no element %+v among:%s", f, b.String())
	return 0, Node{}
}

func mustOutput(t *testing.T, c *exec.Cmd) []byte {
	t.Helper()
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v: %v", c.Args, err)
	}
	return out
}
