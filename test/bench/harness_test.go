//go:build bench

// Package bench measures dvvd end to end against real servers, side by side
// with the tools a user would otherwise use. Run with `make bench` (or
// `go test -tags bench -run . -v ./test/bench`); it prints Markdown tables
// for docs/benchmarks.md. Nothing here asserts on time.
package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

var binDir string

func TestMain(m *testing.M) {
	if path := os.Getenv("DVV_BENCH_ECHO"); path != "" {
		echoServer(path) // this binary, re-run as the floor's echo server
		return
	}
	if spec := os.Getenv("DVV_BENCH_VIEWERS"); spec != "" {
		viewersProcess(spec) // this binary, re-run as viewers at low priority
		return
	}
	dir, err := os.MkdirTemp("", "dvv-bench-bin")
	if err != nil {
		panic(err)
	}
	out, err := exec.Command("go", "build", "-o", dir+"/", "../../cmd/dvvd").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build dvvd: %v\n%s", err, out)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type dvvd struct {
	proc   *testbed.Proc
	socket string
}

func startDvvd(t *testing.T) *dvvd {
	t.Helper()
	home := t.TempDir()
	id := fmt.Sprintf("bench-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	cmd := exec.Command(filepath.Join(binDir, "dvvd"), "--id", id, "--no-discovery", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config")
	p := testbed.Start(t, "dvvd", cmd)
	sock := client.SocketPath(id)
	testbed.WaitFile(t, sock, 10*time.Second)
	return &dvvd{proc: p, socket: sock}
}

func (d *dvvd) dial(t *testing.T) *client.Client {
	c, err := client.Dial(context.Background(), d.socket, client.Options{Name: "bench"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rssKiB and cpuTicks read the daemon's own accounting from /proc.
func (d *dvvd) rssKiB() int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.proc.Cmd.Process.Pid))
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			n, _ := strconv.Atoi(strings.Fields(line)[1])
			return n
		}
	}
	return 0
}

func (d *dvvd) cpuTicks() int { return procTicks(d.proc.Cmd.Process.Pid) }

// procTicks is a process's CPU time so far (user and system), in clock
// ticks of 10 ms, from /proc; 0 once it is gone.
func procTicks(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	k, _ := strconv.Atoi(f[12])
	return u + k
}

func (d *dvvd) fds() int {
	e, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", d.proc.Cmd.Process.Pid))
	return len(e)
}

func must(t *testing.T, c *client.Client, a wire.Args) *wiretest.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	r, err := client.Call[wiretest.Response](ctx, c, a)
	if err != nil {
		t.Fatalf("%s: %v", a.Op(), err)
	}
	return r
}

func openVNC(t *testing.T, c *client.Client, port int) string {
	t.Helper()
	p := true
	r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "vnc", Perceive: &p})
	to := 20000
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: &to})
	deadline := time.Now().Add(20 * time.Second)
	for must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation.Coverage < 1 {
		if time.Now().After(deadline) {
			t.Fatal("first frame incomplete")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return r.LimbID
}

// durations summarises samples.
type durations []time.Duration

func (d durations) pct(p float64) time.Duration {
	s := append(durations(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func timeN(n int, fn func()) durations {
	out := make(durations, n)
	for i := range out {
		t0 := time.Now()
		fn()
		out[i] = time.Since(t0)
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1000) }

// report prints a Markdown block that docs/benchmarks.md takes as it is.
func report(t *testing.T, title string, lines ...string) {
	fmt.Printf("\n#### %s\n\n%s\n", title, strings.Join(lines, "\n"))
}

// desktopScene puts typical content on a display: a coloured root, two
// xterms full of text and a clock.
func desktopScene(t *testing.T, d *testbed.Display) {
	d.Run(t, "xsetroot", "-solid", "#2e4a62")
	d.Background(t, "xterm", "-geometry", "100x40+20+20", "-fa", "DejaVu Sans Mono", "-fs", "10", "-e", "sh", "-c", "ls -lR /usr/share/doc | head -300; exec sleep 100000")
	d.Background(t, "xterm", "-geometry", "80x30+700+300", "-fa", "DejaVu Sans Mono", "-fs", "11", "-e", "sh", "-c", "cat /etc/services | head -200; exec sleep 100000")
	d.WaitStill(t, "xterm")
}

// opWatch follows dvvd's op.start events for one limb, so a benchmark can
// change the screen only once the wait that should see the change is in
// dvvd (no answer says a wait has begun; its op.start event does).
type opWatch struct {
	c    *client.Client
	limb string
}

func watchOps(t *testing.T, d *dvvd, limb string) *opWatch {
	c := d.dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Subscribe(ctx, wire.SubscribeArgs{Events: []string{"op.start"}}); err != nil {
		t.Fatal(err)
	}
	return &opWatch{c: c, limb: limb}
}

// mark sends a status through the watcher and skips the events before its
// own: every op.start seen after mark was started after it.
func (w *opWatch) mark(t *testing.T) {
	t.Helper()
	must(t, w.c, wire.StatusArgs{Target: wire.Target{LimbID: w.limb}})
	w.started(t, wire.OpStatus, 1)
}

// started returns once n more ops named op have started on the limb.
func (w *opWatch) started(t *testing.T, op string, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for n > 0 {
		select {
		case ev := <-w.c.Events():
			if ev.Kind == "op.start" && ev.LimbID == w.limb && ev.Detail == op {
				n--
			}
		case <-deadline:
			t.Fatalf("%d %s ops on %s never started", n, op, w.limb)
		}
	}
}
