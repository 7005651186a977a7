//go:build bench

package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTwoHundredTerminalLimbs holds 200 SSH terminal limbs (slots 1–200,
// each its own SSH connection and PTY session) to the suite's sshd in one
// dvvd, for docs/scale.md.
func TestTwoHundredTerminalLimbs(t *testing.T) {
	n := 200
	if v := os.Getenv("DVV_BENCH_LIMBS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	if os.Getenv("DVV_BENCH_200") == "" {
		t.Skip("set DVV_BENCH_200=1 to open 200 SSH limbs")
	}
	s := testbed.StartSSHD(t, testbed.SSHDConfig("MaxStartups 400", "MaxSessions 400"))
	id := fmt.Sprintf("bench200-%d", os.Getpid())
	cmd := exec.Command(filepath.Join(binDir, "dvvd"), "--id", id, "--no-discovery", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "HOME="+s.Home, "XDG_CONFIG_HOME="+filepath.Join(s.Home, ".config"))
	d := &dvvd{proc: testbed.Start(t, "dvvd", cmd), socket: client.SocketPath(id)}
	testbed.WaitFile(t, d.socket, 10*time.Second)
	c := d.dial(t)
	idle := d.rssKiB()
	port := s.Port

	t0 := time.Now()
	ids := make([]string, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32) // opens in flight at once
	for i := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			slot := i + 1
			r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "ssh", Slot: &slot})
			to := 25000
			w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: &to})
			if w.Wait == nil || !w.Wait.Settled {
				t.Errorf("limb %d did not connect: %+v", slot, w.Wait)
			}
			ids[i] = r.LimbID
		}()
	}
	wg.Wait()
	openTook := time.Since(t0)
	if t.Failed() {
		t.FailNow()
	}
	time.Sleep(3 * time.Second) // settling, then a 10 s idle window: what is measured
	rss, fds := d.rssKiB(), d.fds()
	c0 := d.cpuTicks()
	time.Sleep(10 * time.Second)
	idleCPU := float64(d.cpuTicks()-c0) / 100 / 10 * 100
	list := timeN(20, func() { must(t, c, wire.LimbsArgs{}) })
	status := timeN(50, func() { must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: ids[len(ids)/2]}}) })
	runTo := 10000
	run := timeN(10, func() {
		r := must(t, c, wire.RunArgs{Target: wire.Target{LimbID: ids[len(ids)-1]}, Command: "echo ok", TimeoutMs: runTo})
		if r.Run == nil || !strings.Contains(r.Run.Stdout, "ok") {
			t.Fatalf("run: %+v", r.Run)
		}
	})
	report(t, fmt.Sprintf("one dvvd, %d SSH terminal limbs to one sshd (each its own connection and PTY)", n),
		"| what | measured |", "| --- | --- |",
		fmt.Sprintf("| open and connect %d (32 in flight) | %s |", n, ms(openTook)),
		fmt.Sprintf("| dvvd RSS | %.1f MiB (idle daemon %.1f MiB; %.0f KiB per limb) |", float64(rss)/1024, float64(idle)/1024, float64(rss-idle)/float64(n)),
		fmt.Sprintf("| idle CPU over 10 s | %.2f %% of one core |", idleCPU),
		fmt.Sprintf("| open file descriptors | %d |", fds),
		fmt.Sprintf("| limbs (list all, p50 / p90 of 20) | %s / %s |", ms(list.pct(0.5)), ms(list.pct(0.9))),
		fmt.Sprintf("| status of one limb (p50 / p90 of 50) | %s / %s |", ms(status.pct(0.5)), ms(status.pct(0.9))),
		fmt.Sprintf("| run `echo ok` on one limb (p50 of 10) | %s |", ms(run.pct(0.5))))
	_ = context.Background
}
