package ssh

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/termstreams"
	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/limb"
)

// These benchmarks compare dvv with OpenSSH's own client on the same
// sshd in the same run:
//
//	go test ./pkg/limb/ssh -run '^$' -bench . -benchtime 200x
//
// Each reports p50-ms (run) or MB/s and peak-heap-MiB (SFTP).

func openSSHArgs(s *testbed.SSHD, extra ...string) []string {
	args := []string{"-F", "none", "-p", strconv.Itoa(s.Port), "-i", s.ClientKey,
		"-o", "UserKnownHostsFile=" + filepath.Join(s.Home, ".ssh", "known_hosts"),
		"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes"}
	return append(args, extra...)
}

func reportP50(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	if len(d) > 0 {
		b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, "p90-ms")
	}
}

// BenchmarkRunTrueWarm is `run "true"` on a warm terminal limb.
func BenchmarkRunTrueWarm(b *testing.B) {
	s := testbed.StartSSHD(b)
	ctx := context.Background()
	term, err := testOpts(s).DialTerminal(ctx, target(s))
	if err != nil {
		b.Fatal(err)
	}
	defer term.Close()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		r, err := term.Run(c, "true", "", 0)
		cancel()
		if err != nil || r.ExitCode == nil || *r.ExitCode != 0 {
			b.Fatalf("%+v %v", r, err)
		}
		times = append(times, time.Since(start))
	}
	reportP50(b, times)
}

// BenchmarkOpenSSHFresh is `ssh host true` with a new connection each time.
func BenchmarkOpenSSHFresh(b *testing.B) {
	testbed.Need(b, "ssh")
	s := testbed.StartSSHD(b)
	args := openSSHArgs(s, s.User+"@"+s.Host, "true")
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if out, err := exec.Command("ssh", args...).CombinedOutput(); err != nil {
			b.Fatalf("ssh: %v %s", err, out)
		}
		times = append(times, time.Since(start))
	}
	reportP50(b, times)
}

// BenchmarkOpenSSHControlMaster is `ssh host true` multiplexed over a
// persistent master connection (ControlMaster/ControlPersist).
func BenchmarkOpenSSHControlMaster(b *testing.B) {
	testbed.Need(b, "ssh")
	s := testbed.StartSSHD(b)
	sock := filepath.Join(b.TempDir(), "cm")
	mux := []string{"-o", "ControlMaster=auto", "-o", "ControlPath=" + sock, "-o", "ControlPersist=60"}
	args := openSSHArgs(s, append(mux, s.User+"@"+s.Host, "true")...)
	if out, err := exec.Command("ssh", args...).CombinedOutput(); err != nil { // starts the master
		b.Fatalf("ssh: %v %s", err, out)
	}
	defer exec.Command("ssh", openSSHArgs(s, append(mux, "-O", "exit", s.User+"@"+s.Host)...)...).Run()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if out, err := exec.Command("ssh", args...).CombinedOutput(); err != nil {
			b.Fatalf("ssh: %v %s", err, out)
		}
		times = append(times, time.Since(start))
	}
	reportP50(b, times)
}

// BenchmarkRunTrueSideBySide interleaves the three ways of running `true`
// in one loop, so machine load falls on all of them alike: dvv's warm
// limb, OpenSSH over a ControlMaster, and (every tenth iteration) a fresh
// OpenSSH connection. It reports each one's p50.
func BenchmarkRunTrueSideBySide(b *testing.B) {
	testbed.Need(b, "ssh")
	s := testbed.StartSSHD(b)
	ctx := context.Background()
	term, err := testOpts(s).DialTerminal(ctx, target(s))
	if err != nil {
		b.Fatal(err)
	}
	defer term.Close()
	sock := filepath.Join(b.TempDir(), "cm")
	mux := []string{"-o", "ControlMaster=auto", "-o", "ControlPath=" + sock, "-o", "ControlPersist=60"}
	cmArgs := openSSHArgs(s, append(mux, s.User+"@"+s.Host, "true")...)
	freshArgs := openSSHArgs(s, s.User+"@"+s.Host, "true")
	if out, err := exec.Command("ssh", cmArgs...).CombinedOutput(); err != nil {
		b.Fatalf("ssh: %v %s", err, out)
	}
	defer exec.Command("ssh", openSSHArgs(s, append(mux, "-O", "exit", s.User+"@"+s.Host)...)...).Run()
	var dvv, cm, fresh []time.Duration
	timeIt := func(f func()) time.Duration { t := time.Now(); f(); return time.Since(t) }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dvv = append(dvv, timeIt(func() {
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if r, err := term.Run(c, "true", "", 0); err != nil || r.ExitCode == nil {
				b.Fatalf("%+v %v", r, err)
			}
		}))
		cm = append(cm, timeIt(func() {
			if out, err := exec.Command("ssh", cmArgs...).CombinedOutput(); err != nil {
				b.Fatalf("ssh: %v %s", err, out)
			}
		}))
		if i%10 == 0 {
			fresh = append(fresh, timeIt(func() {
				if out, err := exec.Command("ssh", freshArgs...).CombinedOutput(); err != nil {
					b.Fatalf("ssh: %v %s", err, out)
				}
			}))
		}
	}
	b.StopTimer()
	p50 := func(d []time.Duration) float64 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(p50(dvv), "dvv-p50-ms")
	b.ReportMetric(p50(cm), "controlmaster-p50-ms")
	b.ReportMetric(p50(fresh), "fresh-p50-ms")
	b.ReportMetric(p50(dvv)/p50(cm), "dvv/cm")
}

const benchFileSize = 100 << 20

func randomFile(b *testing.B, dir string) string {
	p := filepath.Join(dir, "src.bin")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.CopyN(f, rand.Reader, benchFileSize); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return p
}

// heapPeak samples the heap while a transfer runs.
type heapPeak struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func watchHeap() *heapPeak {
	runtime.GC()
	h := &heapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > h.peak.Load() {
				h.peak.Store(m.HeapInuse)
			}
			select {
			case <-h.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return h
}

func (h *heapPeak) end() float64 {
	close(h.stop)
	<-h.done
	return float64(h.peak.Load()) / (1 << 20)
}

func benchFiles(b *testing.B) (*testbed.SSHD, limb.Files, string) {
	s := testbed.StartSSHD(b)
	fs, err := testOpts(s).DialFiles(context.Background(), limb.Target{Address: s.Host, SSHPort: s.Port})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { fs.Close() })
	dir := b.TempDir()
	return s, fs, dir
}

// BenchmarkSFTPPut100MiB streams a 100 MiB local file to the server.
func BenchmarkSFTPPut100MiB(b *testing.B) {
	_, fs, dir := benchFiles(b)
	src := randomFile(b, dir)
	b.SetBytes(benchFileSize)
	h := watchHeap()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, _ := os.Open(src)
		if n, err := fs.Put(filepath.Join(dir, "dst.bin"), f, 0o600); err != nil || n != benchFileSize {
			b.Fatalf("put: %d %v", n, err)
		}
		f.Close()
	}
	b.StopTimer()
	b.ReportMetric(h.end(), "peak-heap-MiB")
	b.ReportMetric(vmHWM(), "peak-rss-MiB")
}

// BenchmarkSFTPGet100MiB streams a 100 MiB remote file to a local file.
func BenchmarkSFTPGet100MiB(b *testing.B) {
	_, fs, dir := benchFiles(b)
	src := randomFile(b, dir)
	b.SetBytes(benchFileSize)
	h := watchHeap()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, _ := os.Create(filepath.Join(dir, "got.bin"))
		if n, err := fs.Get(src, out, 0); err != nil || n != benchFileSize {
			b.Fatalf("get: %d %v", n, err)
		}
		out.Close()
	}
	b.StopTimer()
	b.ReportMetric(h.end(), "peak-heap-MiB")
	b.ReportMetric(vmHWM(), "peak-rss-MiB")
}

// BenchmarkSFTPSideBySide interleaves dvv and OpenSSH's sftp (batch
// mode) on one server: put then get of 100 MiB each, every iteration, and
// reports each one's throughput.
func BenchmarkSFTPSideBySide(b *testing.B) {
	testbed.Need(b, "sftp")
	s, fs, dir := benchFiles(b)
	src := randomFile(b, dir)
	sftpBatch := func(line string) {
		batch := filepath.Join(dir, "batch")
		os.WriteFile(batch, []byte(line+"\n"), 0o600)
		args := []string{"-q", "-b", batch, "-F", "none", "-P", strconv.Itoa(s.Port), "-i", s.ClientKey,
			"-o", "UserKnownHostsFile=" + filepath.Join(s.Home, ".ssh", "known_hosts"),
			"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", s.User + "@" + s.Host}
		if out, err := exec.Command("sftp", args...).CombinedOutput(); err != nil {
			b.Fatalf("sftp: %v %s", err, out)
		}
	}
	var dvvPut, dvvGet, sshPut, sshGet time.Duration
	timeIt := func(f func()) time.Duration { t := time.Now(); f(); return time.Since(t) }
	h := watchHeap()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dvvPut += timeIt(func() {
			f, _ := os.Open(src)
			defer f.Close()
			if n, err := fs.Put(filepath.Join(dir, "dvv-put.bin"), f, 0o600); err != nil || n != benchFileSize {
				b.Fatalf("put: %d %v", n, err)
			}
		})
		sshPut += timeIt(func() { sftpBatch(fmt.Sprintf("put %s %s/ssh-put.bin", src, dir)) })
		dvvGet += timeIt(func() {
			out, _ := os.Create(filepath.Join(dir, "dvv-got.bin"))
			defer out.Close()
			if n, err := fs.Get(src, out, 0); err != nil || n != benchFileSize {
				b.Fatalf("get: %d %v", n, err)
			}
		})
		sshGet += timeIt(func() { sftpBatch(fmt.Sprintf("get %s %s/ssh-got.bin", src, dir)) })
	}
	b.StopTimer()
	mbps := func(d time.Duration) float64 { return float64(b.N) * benchFileSize / (1 << 20) / d.Seconds() }
	b.ReportMetric(mbps(dvvPut), "dvv-put-MiB/s")
	b.ReportMetric(mbps(sshPut), "openssh-put-MiB/s")
	b.ReportMetric(mbps(dvvGet), "dvv-get-MiB/s")
	b.ReportMetric(mbps(sshGet), "openssh-get-MiB/s")
	b.ReportMetric(h.end(), "peak-heap-MiB")
}

// vmHWM is this process's peak resident set, in MiB.
func vmHWM() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.ParseFloat(f[1], 64)
				return kb / 1024
			}
		}
	}
	return 0
}

// BenchmarkTerminalFlood cats a 100 MB coloured `ls -l` file on a real
// sshd into a terminal limb, with the grid read every 25 ms as a text
// wait does, until the marker after it shows; it reports this process's
// CPU seconds for the 100 MB (the limb's whole side: SSH, ring, screen):
//
//	go test ./pkg/limb/ssh -run '^$' -bench TerminalFlood -benchtime 1x
func BenchmarkTerminalFlood(b *testing.B) {
	s := testbed.StartSSHD(b)
	data := termstreams.ColouredLs(100 << 20)
	path := filepath.Join(b.TempDir(), "ls.txt")
	os.WriteFile(path, bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), 0o644)
	term, err := testOpts(s).DialTerminal(context.Background(), target(s))
	if err != nil {
		b.Fatal(err)
	}
	defer term.Close()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		marker := fmt.Sprintf("FLOOD-%d", 1000+i)
		cpu0 := cpuTime()
		term.Send([]byte(fmt.Sprintf("cat %s; echo FLOOD-$((%d+1))\n", path, 999+i)))
		for !strings.Contains(strings.Join(first(term.Grid()), "\n"), marker) {
			time.Sleep(25 * time.Millisecond) // the text wait's pace
		}
		cpu += cpuTime() - cpu0
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/100MB")
}

func first(rows []string, _, _ int) []string { return rows }

// cpuTime is this process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
