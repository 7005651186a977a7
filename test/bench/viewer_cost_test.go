//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// What three viewers cost an agent's screen is read in pairs of short
// rounds, one without and one with the viewers, the order swapped every
// pair (ABBA), so drift in the machine's load falls on both sides. Each
// pair gives its own p50 change; their median is the figure, and the
// spread of the pairs says how far one run can be trusted. A single
// pooled p50 over long rounds was moved more by a burst of other work
// than by the viewers (−25% to +187% for the same code).
const (
	costPairs   = 12
	costPerSide = 20
)

// cpuShare is CPU time spent by a process over a wall-clock span.
type cpuShare struct{ dvvd, other, wall time.Duration }

func (c cpuShare) pct(cpu time.Duration) string {
	return fmt.Sprintf("%.0f%%", 100*cpu.Seconds()/c.wall.Seconds())
}

// The agent's screen two ways: `full` as an agent calls it (an
// unchanged frame is answered from the limb's encode cache, so its p50
// also follows how often the xterm repaints, which anything on the cores
// moves), and `fresh`, a region a row shorter each call, so every call
// copies and encodes (the work the viewers could slow).
var screenKinds = []string{"full", "fresh"}

// viewerCost is one side-by-side measurement.
type viewerCost struct {
	without, with map[string]durations // every screen's time, pooled
	changes       map[string][]float64 // per pair: p50 with / p50 without − 1
	cpu0, cpu3    cpuShare
}

// measureViewerCost runs the pairs. attach returns once the viewers draw;
// otherCPU is the CPU of whatever decodes for the viewers (or of the
// agent's own process when they decode there).
func measureViewerCost(t *testing.T, d *dvvd, c *client.Client, id string, w, h int, attach, detach func(), otherCPU func() time.Duration) viewerCost {
	t.Helper()
	vc := viewerCost{without: map[string]durations{}, with: map[string]durations{}, changes: map[string][]float64{}}
	shot := map[string]func(i int) wire.ScreenArgs{
		"full": func(int) wire.ScreenArgs { return wire.ScreenArgs{Target: wire.Target{LimbID: id}} },
		"fresh": func(i int) wire.ScreenArgs {
			return wire.ScreenArgs{Target: wire.Target{LimbID: id}, Form: "region", Region: &wire.Region{W: w, H: h - i}}
		},
	}
	side := func(into map[string]durations, cpu *cpuShare) map[string]time.Duration {
		d0, o0, w0 := d.cpuTicks(), otherCPU(), time.Now()
		p50 := map[string]time.Duration{}
		for _, k := range screenKinds {
			i := 0
			got := timeN(costPerSide, func() { must(t, c, shot[k](i)); i++ })
			into[k] = append(into[k], got...)
			p50[k] = got.pct(0.5)
		}
		cpu.dvvd += time.Duration(d.cpuTicks()-d0) * 10 * time.Millisecond
		cpu.other += otherCPU() - o0
		cpu.wall += time.Since(w0)
		return p50
	}
	for p := 0; p < costPairs; p++ {
		var p0, p3 map[string]time.Duration
		if p%2 == 0 {
			p0 = side(vc.without, &vc.cpu0)
			attach()
			p3 = side(vc.with, &vc.cpu3)
			detach()
		} else {
			attach()
			p3 = side(vc.with, &vc.cpu3)
			detach()
			p0 = side(vc.without, &vc.cpu0)
		}
		for _, k := range screenKinds {
			vc.changes[k] = append(vc.changes[k], float64(p3[k])/float64(p0[k])-1)
		}
	}
	return vc
}

// rows is the report: pooled percentiles, the median pair's change and
// the pairs' spread, and the CPU shares.
func (vc viewerCost) rows(other string) []string {
	out := []string{
		"| `screen` | no viewer p50 / p90 | three viewers p50 / p90 | pooled p50 change | median pair's change | pairs, sorted |",
		"| --- | --- | --- | --- | --- | --- |",
	}
	for _, k := range screenKinds {
		ch := append([]float64(nil), vc.changes[k]...)
		sort.Float64s(ch)
		var each []string
		for _, x := range ch {
			each = append(each, fmt.Sprintf("%+.0f%%", 100*x))
		}
		wo, wi := vc.without[k], vc.with[k]
		out = append(out, fmt.Sprintf("| %s | %s / %s | %s / %s | %+.0f%% | **%+.0f%%** | %s |", k,
			ms(wo.pct(0.5)), ms(wo.pct(0.9)), ms(wi.pct(0.5)), ms(wi.pct(0.9)),
			100*(float64(wi.pct(0.5))/float64(wo.pct(0.5))-1), 100*median(ch), strings.Join(each, " ")))
	}
	return append(out, "",
		"| CPU (share of one core) while the screens run | no viewer | three viewers |", "| --- | --- | --- |",
		fmt.Sprintf("| dvvd | %s | %s |", vc.cpu0.pct(vc.cpu0.dvvd), vc.cpu3.pct(vc.cpu3.dvvd)),
		fmt.Sprintf("| %s | %s | %s |", other, vc.cpu0.pct(vc.cpu0.other), vc.cpu3.pct(vc.cpu3.other)))
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// inProcessViewers attach and detach three viewers decoding in this
// process (our RFB client on the page's WebSocket, noVNC's encodings).
func inProcessViewers(t *testing.T, viewerURL, id string) (attach, detach func()) {
	var vs []*rfb.Client
	attach = func() {
		for i := 0; i < 3; i++ {
			v := goViewer(t, viewerURL, id)
			if err := firstFrame(v); err != nil {
				t.Fatal(err)
			}
			vs = append(vs, v)
		}
	}
	detach = func() {
		for _, v := range vs {
			v.Close()
		}
		vs = nil
		sessionsEnded(t, viewerURL)
	}
	return attach, detach
}

// sessionsEnded waits until dvvd has closed every connection on the
// viewer's port: with the viewers gone (their side closed, dvvd's in
// CLOSE-WAIT until the session ends), none is left established or
// waiting. The measuring pages have left before the viewers' rounds.
func sessionsEnded(t *testing.T, viewerURL string) {
	t.Helper()
	u, err := url.Parse(viewerURL)
	if err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 10*time.Second, "dvvd to end the viewers' sessions", func() bool {
		out, _ := exec.Command("ss", "-tnH", "state", "established", "state", "close-wait", "( sport = :"+u.Port()+" )").Output()
		return len(bytes.TrimSpace(out)) == 0
	})
}

// firstFrame waits until a viewer holds a whole frame.
func firstFrame(v *rfb.Client) error {
	buf := v.Framebuffer()
	for {
		changed := buf.Changed()
		if buf.Coverage() == 1 {
			return nil
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("viewer: no first frame in 10 s")
		}
	}
}

// viewersProcess is this binary re-run (DVV_BENCH_VIEWERS="n url limb")
// as a process that holds n viewers while told to: "attach" on stdin
// connects them and answers "ready" once each has a whole frame,
// "detach" closes them and answers "gone"; it ends when stdin closes.
// The benchmark runs it at the lowest priority, so what is left of the
// viewers' cost to the agent is dvvd's work for them.
func viewersProcess(spec string) {
	var n int
	var viewerURL, id string
	if _, err := fmt.Sscan(spec, &n, &viewerURL, &id); err != nil {
		fmt.Fprintln(os.Stderr, "DVV_BENCH_VIEWERS:", err)
		os.Exit(2)
	}
	var vs []*rfb.Client
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "attach":
			for i := 0; i < n; i++ {
				_, v, err := dialViewer(viewerURL, id, &rfb.Config{Shared: true, Encodings: []int32{rfb.EncCopyRect, rfb.EncTight, rfb.EncZRLE}, JPEGQuality: 7})
				if err == nil {
					err = firstFrame(v)
				}
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				vs = append(vs, v)
			}
			fmt.Println("ready")
		case "detach":
			for _, v := range vs {
				v.Close()
			}
			vs = nil
			fmt.Println("gone")
		}
	}
}

// nicedViewers starts that process at nice 19 and drives it.
type nicedViewers struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startNicedViewers(t *testing.T, viewerURL, id string) *nicedViewers {
	t.Helper()
	cmd := exec.Command("nice", "-n", "19", os.Args[0])
	cmd.Env = append(os.Environ(), "DVV_BENCH_VIEWERS=3 "+viewerURL+" "+id)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	nv := &nicedViewers{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return nv
}

func (nv *nicedViewers) tell(t *testing.T, what, want string) {
	t.Helper()
	fmt.Fprintln(nv.in, what)
	if line, err := nv.out.ReadString('\n'); err != nil || line != want+"\n" {
		t.Fatalf("viewers process, %s: %q, %v", what, line, err)
	}
}

func (nv *nicedViewers) cpu() time.Duration {
	return time.Duration(procTicks(nv.cmd.Process.Pid)) * 10 * time.Millisecond
}
