// Package testbed starts the real servers that dvv's tests drive (Xvnc,
// Xvfb+x11vnc, sshd, RDP servers, keyrings…) on 127.0.0.1, and reads ground
// truth back from them. Every process is started by the test and ended by
// its PID in t.Cleanup.
//
// When a server binary is missing the test is skipped, unless
// DVV_REQUIRE_SERVERS=1 (set by `make test`), where it fails: CI must never
// pass by skipping.
package testbed

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Need skips (or, under DVV_REQUIRE_SERVERS=1, fails) unless every named
// program is on PATH (or is an absolute path that exists).
func Need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			Unavailable(t, "%s is not installed: run `make testdeps` (`make test` installs it)", p)
		}
	}
}

// Required reports whether DVV_REQUIRE_SERVERS=1 is set (by `make test` and
// CI): then nothing a test needs may be missing.
func Required() bool { return os.Getenv("DVV_REQUIRE_SERVERS") == "1" }

// Unavailable ends a test that cannot run here (a server, an asset or a
// privilege is missing): a skip on a developer's machine, a failure under
// DVV_REQUIRE_SERVERS=1, so CI never passes by skipping.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf(format+" (DVV_REQUIRE_SERVERS=1: this must not be missing)", args...)
	}
	t.Skipf(format, args...)
}

// NeedRoot ends the test through Unavailable unless it runs as root, for
// tests that create accounts or act as another user (CI runs as root).
func NeedRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Unavailable(t, "%s needs root (make test runs as root in CI)", why)
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Proc is a started server process.
type Proc struct {
	Cmd  *exec.Cmd
	Log  string        // path of its combined stdout/stderr
	done chan struct{} // closed once the process was reaped
}

// Start runs cmd in the background with its output in a log file under a
// temporary directory, and stops it (SIGTERM, then SIGKILL) at cleanup.
func Start(t testing.TB, name string, cmd *exec.Cmd) *Proc {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	p := &Proc{Cmd: cmd, Log: logPath, done: done}
	go func() { cmd.Wait(); f.Close(); close(done) }()
	t.Cleanup(func() {
		p.stop(done)
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil && len(b) > 0 {
				t.Logf("--- %s log (last 2 KiB) ---\n%s", name, tail(b, 2048))
			}
		}
	})
	return p
}

func (p *Proc) stop(done chan struct{}) {
	pid := p.Cmd.Process.Pid
	syscall.Kill(-pid, syscall.SIGTERM) // its own process group, started above
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		syscall.Kill(-pid, syscall.SIGKILL)
		<-done
	}
}

// Kill ends the process at once (SIGKILL) and waits for it, for tests of a
// server dying under a client.
func (p *Proc) Kill() {
	syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
}

// Freeze stops the process (SIGSTOP to its PID), for tests of a server
// that stops answering; Thaw (SIGCONT) undoes it, and cleanup thaws it so
// it can be stopped.
func (p *Proc) Freeze(t testing.TB) {
	t.Helper()
	if err := syscall.Kill(p.Cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP %d: %v", p.Cmd.Process.Pid, err)
	}
	t.Cleanup(p.Thaw)
}

// Thaw continues a frozen process (SIGCONT to its PID).
func (p *Proc) Thaw() { syscall.Kill(p.Cmd.Process.Pid, syscall.SIGCONT) }

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// WaitTCP waits until something accepts connections on addr.
func WaitTCP(t testing.TB, addr string, timeout time.Duration) {
	t.Helper()
	timeout *= slowdown
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listening on %s after %v: %v", addr, timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitFile waits until path exists.
func WaitFile(t testing.TB, path string, timeout time.Duration) {
	t.Helper()
	timeout *= slowdown
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %v", path, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Eventually polls cond until it holds or the timeout passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout *= slowdown
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// readDisplayFD reads the display number an X server writes to -displayfd.
func readDisplayFD(t testing.TB, r *os.File, timeout time.Duration) int {
	t.Helper()
	ch := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		ch <- strings.TrimSpace(line)
	}()
	select {
	case s := <-ch:
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("X server gave display %q", s)
		}
		return n
	case <-time.After(timeout):
		t.Fatalf("X server did not report its display within %v", timeout)
	}
	return 0
}

// Env returns os.Environ with DISPLAY set.
func displayEnv(display int) []string {
	return append(os.Environ(), fmt.Sprintf("DISPLAY=:%d", display))
}
