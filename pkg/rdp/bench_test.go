package rdp

import (
	"bufio"
	"context"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

// openToFullFrame connects and waits until every pixel has been received.
// It returns the time until Dial returned (session active) and until the
// framebuffer coverage reached 100%.
func openToFullFrame(tb testing.TB, addr, user, pass string, depth int) (active, full time.Duration) {
	tb.Helper()
	buf := fb.New()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	logf := func(format string, args ...any) {
		if strings.HasPrefix(format, "rdp: negotiated") {
			lastConfirm = time.Since(start)
		}
	}
	c, err := Dial(ctx, Config{Addr: addr, User: user, Password: pass, Framebuffer: buf, ColorDepth: depth, Width: 800, Height: 600, Logf: logf})
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	active = time.Since(start)
	for buf.Coverage() < 1 {
		select {
		case <-buf.Changed():
		case <-c.Done():
			tb.Fatalf("session ended: %v", c.Err())
		case <-ctx.Done():
			tb.Fatalf("no full frame: coverage %.3f", buf.Coverage())
		}
	}
	return active, time.Since(start)
}

// lastConfirm is how long the last openToFullFrame waited for the server's
// X.224 connection confirm: time spent in the server before any of our
// protocol work.
var lastConfirm time.Duration

// BenchmarkOpenToFullFrame: open an RDP session to FreeRDP's shadow server
// (800x600) and wait for 100% coverage. Needs freerdp-shadow-cli.
func BenchmarkOpenToFullFrame(b *testing.B) {
	for _, sec := range []struct {
		name string
		nla  bool
	}{{"tls", false}, {"nla", true}} {
		b.Run("shadow-"+sec.name, func(b *testing.B) {
			srv := testbed.StartShadow(b, testbed.ShadowOptions{Width: 800, Height: 600, NLA: sec.nla})
			srv.Run(b, "xsetroot", "-solid", "#336699")
			var act, conf time.Duration
			b.ResetTimer()
			for range b.N {
				a, _ := openToFullFrame(b, srv.Addr, srv.User, srv.Password, 32)
				act += a
				conf += lastConfirm
			}
			b.ReportMetric(float64(act.Microseconds())/1000/float64(b.N), "ms-to-active")
			b.ReportMetric(float64(conf.Microseconds())/1000/float64(b.N), "ms-to-x224-confirm")
		})
	}
}

// TestCompareXfreerdp measures open-to-full-frame for this client and for
// xfreerdp against the same servers (FreeRDP's shadow server with TLS and
// with NLA, and xrdp reconnecting to a running session), and logs medians.
// Opt in with DVV_BENCH_XFREERDP=1 (it takes about two minutes).
//
// xfreerdp's "active" is when it logs CONNECTION_STATE_ACTIVE (line-buffered
// through a pipe, stamped on arrival); its "full frame" is when its window,
// captured with `import` in a loop on its own Xvfb display, shows the
// remote screen's colour at the four corners and the centre. The capture
// loop adds up to one capture time (tens of ms) to xfreerdp's figure.
func TestCompareXfreerdp(t *testing.T) {
	if os.Getenv("DVV_BENCH_XFREERDP") != "1" {
		t.Skip("set DVV_BENCH_XFREERDP=1 to compare with xfreerdp")
	}
	testbed.Need(t, "xfreerdp", "import", "stdbuf")
	const rounds = 9
	type server struct {
		name string
		srv  *testbed.RDP
		nla  bool
	}
	var servers []server
	for _, nla := range []bool{false, true} {
		srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600, NLA: nla})
		srv.Run(t, "xsetroot", "-solid", "#336699")
		servers = append(servers, server{map[bool]string{false: "shadow tls", true: "shadow nla"}[nla], srv, nla})
	}
	if os.Geteuid() == 0 {
		x := testbed.StartXrdp(t, testbed.XrdpOptions{KeepSessions: true,
			XSession: "#!/bin/sh\nxsetroot -solid '#336699'\nexec sleep 100000\n"})
		openToFullFrame(t, x.Addr, x.User, x.Password, 32) // start the session
		x.WaitDisplay(t)
		x.Run(t, "xsetroot", "-solid", "#336699")
		servers = append(servers, server{"xrdp tls (running session)", x, false})
	}
	viewer := testbed.StartXvfb(t, 800, 600)
	for _, s := range servers {
		var ourA, ourF, xfA, xfF []time.Duration
		xfConnect = nil
		for range rounds {
			a, f := openToFullFrame(t, s.srv.Addr, s.srv.User, s.srv.Password, 32)
			ourA, ourF = append(ourA, a), append(ourF, f)
			a, f = xfreerdpToFullFrame(t, viewer, s.srv, s.nla)
			xfA, xfF = append(xfA, a), append(xfF, f)
		}
		t.Logf("| %s | %v | %v | %v | %v | %v |", s.name, median(ourA), median(ourF), median(xfConnect), median(xfA), median(xfF))
	}
}

// xfConnect collects when xfreerdp started its TCP connection: its start-up
// cost before any protocol work.
var xfConnect []time.Duration

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2].Round(100 * time.Microsecond)
}

func xfreerdpToFullFrame(t *testing.T, viewer *testbed.Display, srv *testbed.RDP, nla bool) (active, full time.Duration) {
	t.Helper()
	args := []string{"-oL", "xfreerdp", "/v:" + srv.Addr, "/cert:ignore", "/size:800x600", "-gfx", "/bpp:32", "/log-level:DEBUG", "-grab-keyboard"}
	if srv.User != "" {
		args = append(args, "/u:"+srv.User, "/p:"+srv.Password)
	}
	if nla {
		args = append(args, "/sec:nla")
	} else {
		args = append(args, "/sec:tls")
	}
	cmd := viewer.Command("stdbuf", args...)
	cmd.Env = append(cmd.Env, "HOME="+filepath.Join(viewer.Dir, "home"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	activeCh := make(chan time.Duration, 1)
	connectCh := make(chan time.Duration, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			switch l := sc.Text(); {
			case strings.Contains(l, "connecting to peer"):
				select {
				case connectCh <- time.Since(start):
				default:
				}
			case strings.Contains(l, "CONNECTION_STATE_ACTIVE"):
				activeCh <- time.Since(start)
			}
		}
	}()
	want := [3]uint8{0x33, 0x66, 0x99}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if img := captureQuiet(viewer); img != nil && cornersAre(img, want) {
			full = time.Since(start)
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	if full == 0 {
		t.Fatal("xfreerdp never showed the full frame")
	}
	select {
	case active = <-activeCh:
	case <-time.After(2 * time.Second):
	}
	select {
	case c := <-connectCh:
		xfConnect = append(xfConnect, c)
	default:
	}
	return active, full
}

func captureQuiet(d *testbed.Display) *image.RGBA {
	out, err := d.Command("import", "-window", "root", "-depth", "8", "rgba:-").Output()
	if err != nil || len(out) != 800*600*4 {
		return nil
	}
	return &image.RGBA{Pix: out, Stride: 800 * 4, Rect: image.Rect(0, 0, 800, 600)}
}

func cornersAre(img *image.RGBA, want [3]uint8) bool {
	for _, p := range []image.Point{{0, 0}, {799, 0}, {0, 599}, {799, 599}, {400, 300}} {
		c := img.RGBAAt(p.X, p.Y)
		if [3]uint8{c.R, c.G, c.B} != want {
			return false
		}
	}
	return true
}
