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

	"github.com/dvvhq/dvv/internal/termstreams"
	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTerminalThroughput pushes output into a terminal limb on a real
// sshd (cat of a file, seq) until `wait until: text` sees a marker
// printed after it, and reports MB/s and dvvd's CPU per MB, beside the
// same bytes through tmux (a terminal emulator, CPU of its server) and
// script to /dev/null (a PTY and nothing else). While seq floods, another
// client times `status`.
//
//	go test -tags bench -run TestTerminalThroughput -v ./test/bench
func TestTerminalThroughput(t *testing.T) {
	testbed.Need(t, "tmux")
	testbed.Need(t, "script")
	s := testbed.StartSSHD(t)
	dir := t.TempDir()
	const size = 16 << 20
	files := []struct{ name, path string }{
		{"plain text", "plain.txt"}, {"coloured ls -l", "ls.txt"}, {"full-screen redraw (top-like)", "top.txt"}, {"wide/emoji text", "wide.txt"},
	}
	data := [][]byte{termstreams.PlainText(size), termstreams.ColouredLs(size), termstreams.TopRedraw(size/4, 120, 40), termstreams.WideText(size / 2)}
	for i := range files {
		files[i].path = filepath.Join(dir, files[i].path)
		// The PTY adds the CR itself (ONLCR): store bare line feeds.
		os.WriteFile(files[i].path, []byte(strings.ReplaceAll(string(data[i]), "\r\n", "\n")), 0o644)
	}

	d := startDvvdHome(t, s.Home)
	c := d.dial(t)
	r := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"})
	to := 20000
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: &to})
	id := r.LimbID
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	marker := 100
	// run sends command, then waits for the marker echoed after it.
	run := func(command string) (time.Duration, float64) {
		marker++
		cpu0, t0 := d.cpuTicks(), time.Now()
		text := fmt.Sprintf("%s; echo MARK-$((%d+1))\n", command, marker-1)
		must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: id}, Text: &text})
		want := fmt.Sprintf("MARK-%d", marker)
		for {
			wt := 25000
			if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: &want, TimeoutMs: &wt}); w.Wait.Settled {
				break
			}
			if time.Since(t0) > 10*time.Minute {
				t.Fatal("no marker after 10 minutes")
			}
		}
		return time.Since(t0), float64(d.cpuTicks()-cpu0) / 100
	}
	run("true") // warm: the prompt settles

	// xterm.js parses the same bytes (what the PTY passes on) from memory.
	seqData := termstreams.Seq(1, 2000000)
	inBrowser := map[string][]byte{"seq 1 2000000": seqData}
	for i, f := range files {
		inBrowser[f.name] = data[i]
	}
	xt := startXtermJS(t, inBrowser)

	lines := []string{"| output | bytes | dvv MB/s | dvvd CPU s/MB | tmux MB/s | tmux CPU s/MB | xterm.js MB/s | xterm.js CPU s/MB | script MB/s |",
		"| --- | --- | --- | --- | --- | --- | --- | --- | --- |"}
	row := func(name string, n int, command string) {
		wall, cpu := run(command)
		tw, tc := throughTmux(t, command)
		xw, xc, xrows := xt.parse(t, name)
		checkXtermRows(t, name, inBrowser[name], xrows)
		sw := throughScript(t, command)
		mb := float64(n) / 1e6
		lines = append(lines, fmt.Sprintf("| %s | %.1f MB | %.1f | %.3f | %.1f | %.3f | %.1f | %.3f | %.1f |", name, mb, mb/wall.Seconds(), cpu/mb,
			mb/tw.Seconds(), tc/mb, mb/xw.Seconds(), xc/mb, mb/sw.Seconds()))
	}
	for i, f := range files {
		row(f.name, len(data[i]), "cat "+f.path)
	}

	// A 100 MB flood: dvvd's CPU for all of it.
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, []byte(strings.ReplaceAll(string(termstreams.ColouredLs(100<<20)), "\r\n", "\n")), 0o644)
	// Three times: on a shared machine one run can meet a busy moment.
	var floods []string
	for i := 0; i < 3; i++ {
		wall, cpu := run("cat " + big)
		floods = append(floods, fmt.Sprintf("%.1f s wall, dvvd CPU **%.2f s** (%.0f MB/s per core)", wall.Seconds(), cpu, 104.9/cpu))
	}
	floodLine := "100 MiB of coloured `ls -l` (cat), three runs: " + strings.Join(floods, "; ")
	floodLine += fmt.Sprintf("; OpenSSH's own client (`ssh -tt`, output to /dev/null, no emulation) on the same file: %s", openSSHFlood(t, s, "cat "+big))
	os.Remove(big)

	row("seq 1 2000000", len(seqData), "seq 1 2000000")

	// seq 1 2000000 again, with status timed from another client.
	other := d.dial(t)
	idle := timeN(200, func() { must(t, other, wire.StatusArgs{Target: wire.Target{LimbID: id}}) })
	stop := make(chan struct{})
	var busy durations
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			t0 := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			other.Status(ctx, wire.StatusArgs{Target: wire.Target{LimbID: id}})
			cancel()
			busy = append(busy, time.Since(t0))
		}
	}()
	run("seq 1 2000000")
	close(stop)
	wg.Wait()
	report(t, "Terminal limb throughput (120x40, real sshd, `wait until: text` on a marker after the output)", append(lines, "", floodLine)...)
	report(t, "`status` latency from another client while a terminal floods (seq 1 2000000)",
		"| | p50 | p95 | max | samples |", "| --- | --- | --- | --- | --- |",
		fmt.Sprintf("| idle | %s | %s | %s | %d |", ms(idle.pct(0.5)), ms(idle.pct(0.95)), ms(idle.pct(1)), len(idle)),
		fmt.Sprintf("| during the flood | %s | %s | %s | %d |", ms(busy.pct(0.5)), ms(busy.pct(0.95)), ms(busy.pct(1)), len(busy)))
}

// startDvvdHome starts dvvd with home as HOME (its ~/.ssh trusts the test
// sshd) and no agent.
func startDvvdHome(t *testing.T, home string) *dvvd {
	t.Helper()
	id := fmt.Sprintf("bench-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	cmd := exec.Command(filepath.Join(binDir, "dvvd"), "--id", id, "--no-discovery", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+t.TempDir(), "SSH_AUTH_SOCK=")
	p := testbed.Start(t, "dvvd", cmd)
	sock := client.SocketPath(id)
	testbed.WaitFile(t, sock, 10*time.Second)
	return &dvvd{proc: p, socket: sock}
}

// throughTmux runs command in a 120x40 tmux window and returns the wall
// time and the tmux server's CPU seconds until it finished.
func throughTmux(t *testing.T, command string) (time.Duration, float64) {
	sock := "dvvbench" + strconv.Itoa(os.Getpid())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tmux("new-session", "-d", "-s", "idle", "-x", "120", "-y", "40")
	defer exec.Command("tmux", "-L", sock, "kill-server").Run()
	pid, _ := strconv.Atoi(tmux("display", "-p", "#{pid}"))
	ticks := func() int {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		u, _ := strconv.Atoi(f[11])
		k, _ := strconv.Atoi(f[12])
		return u + k
	}
	cpu0, t0 := ticks(), time.Now()
	tmux("new-window", "-d", "-t", "idle", command+"; tmux -L "+sock+" wait-for -S done")
	tmux("wait-for", "done")
	return time.Since(t0), float64(ticks()-cpu0) / 100
}

// throughScript runs command on a PTY whose output goes to /dev/null.
func throughScript(t *testing.T, command string) time.Duration {
	t0 := time.Now()
	if err := exec.Command("script", "-q", "-c", command, "/dev/null").Run(); err != nil { // stdout: /dev/null
		t.Fatalf("script: %v", err)
	}
	return time.Since(t0)
}

// openSSHFlood runs command through OpenSSH's client on a PTY, output to
// /dev/null: what receiving the bytes costs a C client, three times.
func openSSHFlood(t *testing.T, s *testbed.SSHD, command string) string {
	testbed.Need(t, "ssh")
	var runs []string
	for i := 0; i < 3; i++ {
		cmd := exec.Command("ssh", "-tt", "-F", "none", "-p", strconv.Itoa(s.Port), "-i", s.ClientKey,
			"-o", "UserKnownHostsFile="+filepath.Join(s.Home, ".ssh", "known_hosts"), "-o", "StrictHostKeyChecking=yes",
			"-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", s.User+"@"+s.Host, command)
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = null, &stderr
		t0 := time.Now()
		err = cmd.Run()
		null.Close()
		if err != nil {
			t.Fatalf("ssh: %v %s", err, stderr.String())
		}
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		runs = append(runs, fmt.Sprintf("%.1f s wall, CPU %.2f s", time.Since(t0).Seconds(), cpu.Seconds()))
	}
	return strings.Join(runs, "; ")
}
