//go:build bench

package bench

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// soakServer is one server of the soak: an Xvnc that may be frozen or
// killed and restarted on its port, a FreeRDP shadow server that may be
// frozen, or an SSH session (a slot on the soak's one sshd) whose
// connection may be killed under it.
type soakServer struct {
	mu     sync.Mutex
	vnc    *testbed.VNC
	rdp    *testbed.RDP
	ssh    *testbed.SSHD
	limbID string
}

func (s *soakServer) proc() *testbed.Proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.vnc != nil:
		return s.vnc.Server
	case s.rdp != nil:
		return s.rdp.Server
	}
	return nil
}

// TestSoak runs N limbs (a tenth FreeRDP shadow, a tenth SSH, the rest
// Xvnc) for DVV_SOAK (a duration, e.g. 1h) of mixed agent traffic while
// servers are frozen (SIGSTOP) and killed and SSH connections dropped at
// random, sampling dvvd's RSS and open descriptors. It is a benchmark, not
// a test: it prints the figures for docs/benchmarks.md and asserts
// nothing. Command:
//
//	DVV_SOAK=1h DVV_SOAK_LIMBS=20 go test -count=1 -tags bench -run TestSoak -v -timeout 0 ./test/bench
func TestSoak(t *testing.T) {
	dur, err := time.ParseDuration(os.Getenv("DVV_SOAK"))
	if err != nil || dur <= 0 {
		t.Skip("set DVV_SOAK to a duration (e.g. 12m) to run the soak")
	}
	n := 20
	fmt.Sscanf(os.Getenv("DVV_SOAK_LIMBS"), "%d", &n)
	nRDP := max(1, n/10)
	nSSH := max(1, n/10)

	sshd := testbed.StartSSHD(t, testbed.SSHDConfig("MaxSessions 100"))
	d := startDvvdHome(t, sshd.Home)
	c := d.dial(t)
	idle := d.rssKiB()
	servers := make([]*soakServer, n)
	yes := true
	for i := range servers {
		s := &soakServer{}
		var port int
		proto := "vnc"
		switch {
		case i < nSSH:
			// Each limb a fresh session (slot) on the one sshd.
			s.ssh, port, proto = sshd, sshd.Port, "ssh"
			slot := i + 1
			s.limbID = must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: proto, Slot: &slot}).LimbID
			servers[i] = s
			continue
		case i < nSSH+nRDP:
			s.rdp = testbed.StartShadow(t, testbed.ShadowOptions{Width: 320, Height: 240})
			port, proto = s.rdp.Port, "rdp"
			must(t, c, wire.HostTrustArgs{Address: "127.0.0.1", Port: &port, Protocol: "rdp", AcceptNew: true})
		default:
			s.vnc = testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
			s.vnc.Run(t, "xsetroot", "-solid", fmt.Sprintf("#%02x6080", i*9))
			port = s.vnc.Port
		}
		s.limbID = must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: proto, Perceive: &yes}).LimbID
		servers[i] = s
	}
	to := 30000
	for _, s := range servers {
		must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: s.limbID}, Until: "connected", TimeoutMs: &to})
	}
	settled := d.rssKiB()

	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var (
		wg                  sync.WaitGroup
		ops                 atomic.Int64
		codesMu             sync.Mutex
		codes               = map[string]int{}
		stalls              atomic.Int64
		wrongRun, wrongFile atomic.Int64
		chaos               []string
	)
	count := func(err error) {
		ops.Add(1)
		if err != nil {
			codesMu.Lock()
			codes[string(client.Code(err))]++
			codesMu.Unlock()
		}
	}
	// Agents: four clients acting on random limbs.
	for a := 0; a < 4; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ac, err := client.Dial(context.Background(), d.socket, client.Options{Name: fmt.Sprintf("agent%d", a)})
			if err != nil {
				t.Error(err)
				return
			}
			defer ac.Close()
			do := func(a wire.Args) (*wiretest.Response, error) {
				rctx, rcancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer rcancel()
				r, err := client.Call[wiretest.Response](rctx, ac, a)
				count(err)
				return r, err
			}
			for ctx.Err() == nil {
				s := servers[rand.IntN(len(servers))]
				id := s.limbID
				if s.ssh != nil {
					soakTerminal(id, rand.IntN(4), do, &wrongRun, &wrongFile)
					continue
				}
				switch rand.IntN(6) {
				case 0, 1:
					if r, err := do(wire.StatusArgs{Target: wire.Target{LimbID: id}}); err == nil && r.Observation.State == wire.StateStalled {
						stalls.Add(1)
					}
				case 2:
					do(wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.5)})
				case 3:
					w, qm := 500, 100
					do(wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: &qm, TimeoutMs: &w})
				case 4:
					if _, err := do(wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"}); err == nil {
						r, err := do(wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.25)})
						if err == nil {
							x, y := rand.IntN(300), rand.IntN(220)
							g := r.Screen.Generation
							do(wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: &x, Y: &y, Generation: &g})
							do(wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: strp("soak")})
						}
						do(wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "release"})
					}
				case 5:
					if _, err := do(wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"}); err == nil {
						do(wire.ClipboardArgs{Target: wire.Target{LimbID: id}, Action: "set", Text: strp(strings.Repeat("soak clipboard ", 1000))})
						do(wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "release"})
					}
				}
			}
		}()
	}
	// Chaos: every 10 to 30 s a random server is frozen for 5 to 20 s, or
	// (Xvnc) killed and started again on its port after 1 to 5 s, or
	// (SSH) every connection of the sshd is killed under its limbs.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Duration(10+rand.IntN(20)) * time.Second):
			}
			s := servers[rand.IntN(len(servers))]
			if s.ssh != nil {
				s.ssh.KillSessions()
				chaos = append(chaos, "drop")
				continue
			}
			if s.vnc != nil && rand.IntN(2) == 0 {
				s.vnc.Server.Kill()
				time.Sleep(time.Duration(1+rand.IntN(5)) * time.Second) // the outage's length: part of the soak
				v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240, Port: s.vnc.Port})
				s.mu.Lock()
				s.vnc = v
				s.mu.Unlock()
				chaos = append(chaos, "kill")
				continue
			}
			p := s.proc()
			p.Freeze(t)
			time.Sleep(time.Duration(5+rand.IntN(15)) * time.Second) // the freeze's length: part of the soak
			p.Thaw()
			chaos = append(chaos, "freeze")
		}
	}()
	// Samples of dvvd every 15 s.
	type sample struct {
		at       time.Duration
		rss, fds int
	}
	var samples []sample
	start := time.Now()
	cpu0 := d.cpuTicks()
	tick := time.NewTicker(15 * time.Second)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			samples = append(samples, sample{time.Since(start), d.rssKiB(), d.fds()})
		}
	}
	tick.Stop()
	wg.Wait()
	elapsed := time.Since(start)
	cpu := float64(d.cpuTicks()-cpu0) / 100 / elapsed.Seconds() * 100
	reconnects := 0
	for _, s := range servers {
		if r, err := c.Status(context.Background(), wire.StatusArgs{Target: wire.Target{LimbID: s.limbID}}); err == nil {
			reconnects += r.Observation.Reconnects
		}
	}
	q := len(samples) / 4
	avg := func(ss []sample, f func(sample) int) float64 {
		sum := 0
		for _, s := range ss {
			sum += f(s)
		}
		return float64(sum) / float64(max(1, len(ss)))
	}
	rss := func(s sample) int { return s.rss }
	fds := func(s sample) int { return s.fds }
	minMax := func(f func(sample) int) (int, int) {
		lo, hi := 1<<62, 0
		for _, s := range samples {
			lo, hi = min(lo, f(s)), max(hi, f(s))
		}
		return lo, hi
	}
	rlo, rhi := minMax(rss)
	flo, fhi := minMax(fds)
	kills, freezes, drops := 0, 0, 0
	for _, k := range chaos {
		switch k {
		case "kill":
			kills++
		case "drop":
			drops++
		default:
			freezes++
		}
	}
	var codeList []string
	for k, v := range codes {
		codeList = append(codeList, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(codeList)
	report(t, fmt.Sprintf("soak: %d limbs (%d Xvnc, %d FreeRDP shadow at 320x240, %d SSH), %s of mixed agent traffic with servers frozen and killed and SSH connections dropped", n, n-nRDP-nSSH, nRDP, nSSH, elapsed.Round(time.Second)),
		"| what | measured |", "| --- | --- |",
		fmt.Sprintf("| requests (4 agents: status, screen, wait, acquire/click/type/release, clipboard; on SSH: run, files put/get, term send) | %d |", ops.Load()),
		fmt.Sprintf("| coded errors | %s |", strings.Join(codeList, ", ")),
		fmt.Sprintf("| answers that succeeded with the wrong bytes: run output / file read back | %d / %d |", wrongRun.Load(), wrongFile.Load()),
		fmt.Sprintf("| chaos | %d freezes (5–20 s), %d kills with restart, %d SSH drops |", freezes, kills, drops),
		fmt.Sprintf("| limb reconnects at the end (sum) | %d |", reconnects),
		fmt.Sprintf("| status answers that said `stalled` | %d |", stalls.Load()),
		fmt.Sprintf("| dvvd RSS: idle / limbs open / min–max over the run | %.1f / %.1f / %.1f–%.1f MiB |", float64(idle)/1024, float64(settled)/1024, float64(rlo)/1024, float64(rhi)/1024),
		fmt.Sprintf("| dvvd RSS mean, first quarter → last quarter of samples | %.1f → %.1f MiB |", avg(samples[:q], rss)/1024, avg(samples[len(samples)-q:], rss)/1024),
		fmt.Sprintf("| open descriptors min–max; mean first → last quarter | %d–%d; %.1f → %.1f |", flo, fhi, avg(samples[:q], fds), avg(samples[len(samples)-q:], fds)),
		fmt.Sprintf("| dvvd CPU over the run | %.1f %% of one core |", cpu))
	var series []string
	for _, s := range samples {
		series = append(series, fmt.Sprintf("%.0fs:%.0fMiB/%dfd", s.at.Seconds(), float64(s.rss)/1024, s.fds))
	}
	fmt.Printf("\nsamples: %s\n", strings.Join(series, " "))
}

// soakTerminal is one agent step on an SSH limb: status, a run whose
// output is checked, a file put and read back, or keys sent to the shell
// under a lease. It counts an answer that succeeded with the wrong bytes in
// wrongRun or wrongFile.
func soakTerminal(id string, step int, do func(wire.Args) (*wiretest.Response, error), wrongRun, wrongFile *atomic.Int64) {
	target := wire.Target{LimbID: id}
	switch step {
	case 0:
		do(wire.StatusArgs{Target: target})
	case 1:
		want := fmt.Sprintf("soak-%d", rand.IntN(1e9))
		if r, err := do(wire.RunArgs{Target: target, TimeoutMs: 10000, Command: "echo " + want}); err == nil && (r.Run == nil || !strings.Contains(r.Run.Stdout, want)) {
			wrongRun.Add(1)
		}
	case 2:
		// A path of this step's own: agents write concurrently.
		path := fmt.Sprintf("/tmp/dvv-soak-%s-%d", id, rand.IntN(1e9))
		body := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("soak file ", 1+rand.IntN(3000))))
		if _, err := do(wire.FilesArgs{Target: target, Action: "put", Path: path, ContentBase64: body}); err == nil {
			if r, err := do(wire.FilesArgs{Target: target, Action: "get", Path: path}); err == nil && (r.Files == nil || r.Files.ContentBase64 != body) {
				wrongFile.Add(1)
			}
			do(wire.FilesArgs{Target: target, Action: "remove", Path: path})
		}
	case 3:
		if _, err := do(wire.ControlArgs{Target: target, Action: "acquire"}); err == nil {
			text := "echo soak\n"
			do(wire.TermSendArgs{Target: target, Text: &text})
			do(wire.ControlArgs{Target: target, Action: "release"})
		}
	}
}
