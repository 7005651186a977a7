//go:build bench

package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// echoServer answers every JSON line with the same object re-encoded: the
// same framing and JSON work as dvvd, none of its logic. It runs in its own
// process, so the floor pays the same cross-process wake-ups as dvvd.
func echoServer(path string) {
	l, err := net.Listen("unix", path)
	if err != nil {
		os.Exit(1)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadBytes('\n')
				if err != nil {
					return
				}
				var m map[string]any
				json.Unmarshal(line, &m)
				out, _ := json.Marshal(m)
				c.Write(append(out, '\n'))
			}
		}()
	}
}

func TestSocketRoundTrip(t *testing.T) {
	dir := t.TempDir()
	echoPath := filepath.Join(dir, "echo.sock")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "DVV_BENCH_ECHO="+echoPath)
	testbed.Start(t, "echo", cmd)
	testbed.WaitFile(t, echoPath, 10*time.Second)
	ec, err := net.Dial("unix", echoPath)
	if err != nil {
		t.Fatal(err)
	}
	er := bufio.NewReader(ec)
	req := []byte(`{"op":"status","limbId":"vnc-12345678","id":1}` + "\n")
	echo := timeN(20000, func() { ec.Write(req); er.ReadBytes('\n') })

	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	d := startDvvd(t)
	c := d.dial(t)
	id := openVNC(t, c, v.Port)
	st := wire.StatusArgs{Target: wire.Target{LimbID: id}}
	for i := 0; i < 1000; i++ {
		must(t, c, st)
	}
	// The same synchronous line client as the floor: write a line, read a line.
	rc, err := net.Dial("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	rr := bufio.NewReader(rc)
	line := []byte(`{"op":"status","limbId":"` + id + `"}` + "\n")
	raw := timeN(20000, func() { rc.Write(line); rr.ReadBytes('\n') })
	ping := timeN(20000, func() { rc.Write([]byte(`{"op":"ping"}` + "\n")); rr.ReadBytes('\n') })
	status := timeN(20000, func() { must(t, c, st) })
	report(t, "status round trip over the socket (20,000 calls, one connection, client and server in separate processes)",
		"| what | p50 | p99 |", "| --- | --- | --- |",
		fmt.Sprintf("| bare Unix-socket JSON-line echo in another process (the floor) | %s | %s |", us(echo.pct(0.5)), us(echo.pct(0.99))),
		fmt.Sprintf("| dvvd `ping`, same line client | %s | %s |", us(ping.pct(0.5)), us(ping.pct(0.99))),
		fmt.Sprintf("| dvvd `status` (full observation of a live VNC limb), same line client | %s | %s |", us(raw.pct(0.5)), us(raw.pct(0.99))),
		fmt.Sprintf("| dvvd `status` through pkg/client (what dvv and dvvmcp use: a reader goroutine matches answers to ids) | %s | %s |", us(status.pct(0.5)), us(status.pct(0.99))))
}

// focusTerm starts a shell xterm and focuses it, so key presses echo.
func focusTerm(t *testing.T, d *testbed.Display) {
	d.Background(t, "xterm", "-geometry", "60x10+300+500", "-title", "dvvbench", "-e", "sh")
	testbed.Eventually(t, 10*time.Second, "xterm", func() bool {
		o, err := d.Command("xdotool", "search", "--name", "dvvbench").Output()
		f := strings.Fields(string(o))
		// Without a window manager the keyboard follows the pointer: put it
		// inside the shell's window, then focus it.
		return err == nil && len(f) > 0 && d.Command("xdotool", "mousemove", "--window", f[len(f)-1], "30", "30").Run() == nil &&
			d.Command("xdotool", "windowfocus", "--sync", f[len(f)-1]).Run() == nil
	})
}

func TestScreen(t *testing.T) {
	for _, size := range [][2]int{{1024, 768}, {1920, 1080}} {
		v := testbed.StartXvnc(t, testbed.XvncOptions{Width: size[0], Height: size[1]})
		desktopScene(t, v.Display)
		focusTerm(t, v.Display)
		pw := filepath.Join(t.TempDir(), "pw")
		os.WriteFile(pw, []byte("x"), 0o600)
		out := filepath.Join(t.TempDir(), "snap.jpg")
		snap := timeN(10, func() {
			cmd := exec.Command("timeout", "10", "vncsnapshot", "-quiet", "-allowblank", "-encodings", "raw", fmt.Sprintf("127.0.0.1::%d", v.Port), out)
			cmd.Run()
		})
		d := startDvvd(t)
		c := d.dial(t)
		id := openVNC(t, c, v.Port)
		ops := watchOps(t, d, id)
		// change types one character into the focused xterm and returns
		// once dvvd has seen the echo, so the next screen must encode anew.
		change := func() {
			ops.mark(t)
			done := make(chan bool, 1)
			go func() {
				to := 5000
				r := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-changed", TimeoutMs: &to})
				done <- r.Wait.Settled
			}()
			ops.started(t, wire.OpWait, 1)
			v.Command("xdotool", "type", "--delay", "0", "x").Run()
			if !<-done {
				t.Fatal("typing into the xterm did not change the screen")
			}
			to := 3000
			must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: intp(50), TimeoutMs: &to})
		}
		screen := func(scale float64, form string) func() {
			return func() {
				r := wire.ScreenArgs{Target: wire.Target{LimbID: id}, Form: form}
				if scale != 1 {
					r.Scale = &scale
				}
				must(t, c, r)
			}
		}
		changed := func(fn func()) durations {
			out := make(durations, 15)
			for i := range out {
				change()
				t0 := time.Now()
				fn()
				out[i] = time.Since(t0)
			}
			return out
		}
		full := changed(screen(1, "full"))
		half := changed(screen(0.5, "full"))
		crop := changed(screen(1, "damage-crop"))
		screen(1, "full")()
		cached := timeN(20, screen(1, "full"))
		// Input to pixels: a key typed into the xterm until its echo is seen.
		var inToPix durations
		for i := 0; i < 15; i++ {
			change()
			must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
			must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.1)})
			ops.mark(t)
			var wg sync.WaitGroup
			var took time.Duration
			t0 := time.Now()
			wg.Add(1)
			go func() {
				defer wg.Done()
				to := 5000
				must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-changed", TimeoutMs: &to})
				took = time.Since(t0)
			}()
			ops.started(t, wire.OpWait, 1)
			must(t, c, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: strp("y")})
			wg.Wait()
			inToPix = append(inToPix, took)
		}
		report(t, fmt.Sprintf("screen at %dx%d (Xvnc with two full xterms; p50 of 15 after a one-character change)", size[0], size[1]),
			"| what | p50 | p90 |", "| --- | --- | --- |",
			fmt.Sprintf("| `vncsnapshot -encodings raw` (connect, fetch, JPEG), whole run | %s | %s |", ms(snap.pct(0.5)), ms(snap.pct(0.9))),
			fmt.Sprintf("| dvv `screen` full PNG, scale 1 (frame changed since last encode) | %s | %s |", ms(full.pct(0.5)), ms(full.pct(0.9))),
			fmt.Sprintf("| dvv `screen` full PNG, scale 1, unchanged frame (cached encode) | %s | %s |", ms(cached.pct(0.5)), ms(cached.pct(0.9))),
			fmt.Sprintf("| dvv `screen` scale 0.5 PNG | %s | %s |", ms(half.pct(0.5)), ms(half.pct(0.9))),
			fmt.Sprintf("| dvv `screen` damage-crop of the echoed character | %s | %s |", ms(crop.pct(0.5)), ms(crop.pct(0.9))),
			fmt.Sprintf("| input to pixels: `type` one key until `wait screen-changed` returns | %s | %s |", ms(inToPix.pct(0.5)), ms(inToPix.pct(0.9))),
			"", "A peer's published figure for a full screenshot is about 200 ms.")
	}
}

func TestMemoryPerLimb(t *testing.T) {
	var lines []string
	for _, n := range []int{1, 10} {
		d := startDvvd(t)
		c := d.dial(t)
		base := d.rssKiB()
		for i := 0; i < n; i++ {
			v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
			v.Run(t, "xsetroot", "-solid", "#405060")
			openVNC(t, c, v.Port)
		}
		time.Sleep(2 * time.Second) // settling before the RSS sample: part of the measurement
		rss := d.rssKiB()
		fbMiB := 1024 * 768 * 4 / 1024.0 / 1024
		target := float64(n)*(2*fbMiB+2) + float64(base)/1024
		lines = append(lines, fmt.Sprintf("| %d | %.1f MiB | %.1f MiB | %.1f MiB |", n, float64(rss)/1024, float64(rss-base)/1024/float64(n), target))
	}
	report(t, "dvvd RSS with perceiving 1024x768 limbs (framebuffer 3 MiB each)",
		append([]string{"| limbs | RSS | per limb (above the idle daemon) | target: idle + n × (2 × fb + 2 MiB) |", "| --- | --- | --- | --- |"}, lines...)...)
}

func TestFiftyLimbs(t *testing.T) {
	if os.Getenv("DVV_BENCH_FIFTY") == "" {
		t.Skip("set DVV_BENCH_FIFTY=1 (make bench does) to start 50 Xvnc servers")
	}
	d := startDvvd(t)
	c := d.dial(t)
	idle := d.rssKiB()
	var addrs []string
	for i := 0; i < 50; i++ {
		v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
		v.Run(t, "xsetroot", "-solid", fmt.Sprintf("#%02x4060", i*5))
		addrs = append(addrs, v.Addr)
	}
	p := true
	t0 := time.Now()
	g := must(t, c, wire.GroupOpenArgs{Addresses: addrs, Protocol: "vnc", Perceive: &p}).Group
	openTook := time.Since(t0)
	time.Sleep(3 * time.Second) // settling, then a 10 s idle window: what is measured
	rss, fds := d.rssKiB(), d.fds()
	c0 := d.cpuTicks()
	time.Sleep(10 * time.Second)
	idleCPU := float64(d.cpuTicks()-c0) / 100 / 10 * 100 // percent of one core
	status := timeN(20, func() { must(t, c, wire.GroupRunArgs{GroupID: g.GroupID, Action: "status"}) })
	shot := timeN(5, func() {
		must(t, c, wire.GroupRunArgs{GroupID: g.GroupID, Action: "screen", Arguments: json.RawMessage(`{"scale":0.25}`)})
	})
	// The first run encodes 50 frames; later runs of unchanged screens are
	// served from each limb's encode cache.
	cold, warm := shot[0], shot[1:]
	fbMiB := 640 * 480 * 4 / 1024.0 / 1024
	report(t, "one dvvd, 50 perceiving limbs on 50 Xvnc servers (640x480)",
		"| what | measured | target |", "| --- | --- | --- |",
		fmt.Sprintf("| group_open of 50 | %s | — |", ms(openTook)),
		fmt.Sprintf("| dvvd RSS | %.1f MiB (idle daemon %.1f MiB) | %.1f MiB (2 × fb + 2 MiB per limb) |", float64(rss)/1024, float64(idle)/1024, 50*(2*fbMiB+2)+float64(idle)/1024),
		fmt.Sprintf("| idle CPU over 10 s | %.2f %% of one core | < 2 %% |", idleCPU),
		fmt.Sprintf("| open file descriptors | %d | — |", fds),
		fmt.Sprintf("| group_run status, 50 members (p50 / p90 of 20) | %s / %s | < 50 ms |", ms(status.pct(0.5)), ms(status.pct(0.9))),
		fmt.Sprintf("| group_run screen scale 0.25, 50 members, first (50 encodes) | %s | — |", ms(cold)),
		fmt.Sprintf("| group_run screen scale 0.25, 50 members, unchanged screens (cached, p50 of 4) | %s | — |", ms(warm.pct(0.5))))
	_ = context.Background
}

func intp(i int) *int         { return &i }
func strp(s string) *string   { return &s }
func f64p(f float64) *float64 { return &f }
