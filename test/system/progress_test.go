package system_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// ttyRun is a dvv command whose stderr is a pseudo-terminal, as in a
// person's shell; stdout is a pipe the test reads.
type ttyRun struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer

	mu     sync.Mutex
	screen bytes.Buffer // every byte written to the terminal
	closed chan struct{}
}

// startTTY starts dvv with stderr on a new pseudo-terminal 100 columns wide.
func (d *daemon) startTTY(t *testing.T, args ...string) *ttyRun {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("name the pseudo-terminal: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the terminal side: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 100}); err != nil {
		t.Fatalf("size the terminal: %v", err)
	}
	r := &ttyRun{closed: make(chan struct{})}
	r.cmd = exec.Command(dvvBin, args...)
	r.cmd.Env = append(append([]string{}, d.env...), "DVV_SESSION=shell-a")
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, slave
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the command holds the only terminal side: EOF (EIO) once it exits
	go func() {
		defer close(r.closed)
		defer master.Close()
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			r.mu.Lock()
			r.screen.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	return r
}

// seen is what the terminal received so far.
func (r *ttyRun) seen() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.screen.String()
}

// wait returns the exit status and everything the terminal received.
func (r *ttyRun) wait(t *testing.T) (int, string) {
	t.Helper()
	err := r.cmd.Wait()
	select {
	case <-r.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal did not close after dvv exited")
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), r.seen()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, r.seen()
}

// draws splits terminal output into the bar's redraws (each starts with \r).
func draws(screen string) []string {
	var out []string
	for _, part := range strings.Split(screen, "\r") {
		if part = strings.TrimSuffix(part, "\x1b[K"); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// TestFilesProgressBar runs `dvv files put|get` of a 20 MiB file against a
// real sshd with stderr on a pseudo-terminal: the bar is redrawn in place
// with the bytes dvvd reports, the total, a rate, and is erased at the end;
// the bytes arrive intact. Piped, with --json or --quiet, nothing is drawn.
func TestFilesProgressBar(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)

	const size = 20 << 20 // over the 16 MiB that travel inline: dvvd streams it
	data := make([]byte, size)
	rng := rand.NewChaCha8([32]byte{1})
	rng.Read(data)
	dir := t.TempDir()
	local := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(local, data, 0o600); err != nil {
		t.Fatal(err)
	}
	remote := filepath.Join(s.RemoteHome, "big.bin")
	want := sha256.Sum256(data)

	checkBar := func(verb, screen string) {
		t.Helper()
		ds := draws(screen)
		if len(ds) < 2 {
			t.Fatalf("%s drew %d times, want at least the start and the end: %q", verb, len(ds), screen)
		}
		line := regexp.MustCompile(`^` + verb + ` big\.bin \[[= ]+\] +\d+%  [0-9.]+ [KMG]?i?B / 20\.0 MiB  [0-9.]+ [KMG]?i?B/s`)
		withTotal := 0
		for _, l := range ds {
			if line.MatchString(l) {
				withTotal++
			}
			if len([]rune(l)) >= 100 {
				t.Errorf("a redraw fills the 100-column line (it would wrap): %q", l)
			}
		}
		if withTotal == 0 {
			t.Errorf("%s: no redraw shows the bar with the 20 MiB total: %q", verb, ds)
		}
		t.Logf("%s: %d redraws, among them %q", verb, len(ds), ds[len(ds)/2])
		last := ds[len(ds)-1]
		if !strings.Contains(last, "20.0 MiB / 20.0 MiB") || !strings.Contains(last, "100%") {
			t.Errorf("%s: the last redraw is not the whole file: %q", verb, last)
		}
		if !strings.HasSuffix(screen, "\r\x1b[K") {
			t.Errorf("%s: the bar is not erased at the end: %q", verb, screen[max(0, len(screen)-120):])
		}
		if strings.Contains(screen, "\n") {
			t.Errorf("%s: the bar left a line behind: %q", verb, screen)
		}
	}

	put := d.startTTY(t, "files", "put", limb, local, remote)
	code, screen := put.wait(t)
	if code != 0 || !strings.Contains(put.stdout.String(), fmt.Sprintf("(%d bytes)", size)) {
		t.Fatalf("put: exit %d, stdout %q, terminal %q", code, put.stdout.String(), screen)
	}
	checkBar("put", screen)
	if got, err := os.ReadFile(remote); err != nil || sha256.Sum256(got) != want {
		t.Fatalf("the SFTP server holds %d bytes (%v), not the file put", len(got), err)
	}

	back := filepath.Join(dir, "back.bin")
	get := d.startTTY(t, "files", "get", limb, remote, back)
	code, screen = get.wait(t)
	if code != 0 {
		t.Fatalf("get: exit %d, stdout %q, terminal %q", code, get.stdout.String(), screen)
	}
	checkBar("get", screen)
	if got, err := os.ReadFile(back); err != nil || sha256.Sum256(got) != want {
		t.Fatalf("get brought %d bytes (%v), not the file", len(got), err)
	}

	// Piped, --quiet, --json: not a byte on stderr or the terminal.
	small := filepath.Join(dir, "small.bin")
	if err := os.WriteFile(small, data[:1<<20], 0o600); err != nil {
		t.Fatal(err)
	}
	if r := d.must("files", "put", limb, small, remote); r.stderr != "" {
		t.Errorf("piped put wrote to stderr: %q", r.stderr)
	}
	if r := d.must("files", "get", limb, remote, filepath.Join(dir, "piped.bin")); r.stderr != "" {
		t.Errorf("piped get wrote to stderr: %q", r.stderr)
	}
	for _, args := range [][]string{
		{"files", "get", limb, remote, filepath.Join(dir, "q.bin"), "--quiet"},
		{"files", "put", limb, small, remote, "--json"},
	} {
		r := d.startTTY(t, args...)
		if code, screen := r.wait(t); code != 0 || screen != "" {
			t.Errorf("%v: exit %d, the terminal got %q", args, code, screen)
		}
		if strings.Contains(strings.Join(args, " "), "--quiet") && r.stdout.Len() != 0 {
			t.Errorf("--quiet printed %q", r.stdout.String())
		}
	}

	// A transfer that fails: the bar (dvvd's first report) is erased before
	// the error is printed.
	miss := d.startTTY(t, "files", "get", limb, filepath.Join(s.RemoteHome, "missing.bin"), filepath.Join(dir, "m.bin"))
	code, screen = miss.wait(t)
	if code != wire.ExitGone {
		t.Fatalf("get of a missing file: exit %d, terminal %q", code, screen)
	}
	if i := strings.Index(screen, "dvv: NOT_FOUND"); i < 0 || !strings.HasSuffix(screen[:i], "\r\x1b[K") || !strings.Contains(screen[:i], "get missing.bin") {
		t.Errorf("the failed get's bar is not drawn and erased before the error: %q", screen)
	}
}

// TestFilesProgressBarInterrupted puts a 16 GiB sparse file (nothing to
// read from disk, so it is still moving when the test acts): the bar is
// redrawn in place with rising byte counts of the known total, which
// `dvv transfer status` shows too; Ctrl+C then
// erases it, dvv says why it stopped, and dvvd stops the transfer, leaving
// nothing on the SFTP server.
func TestFilesProgressBarInterrupted(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)

	huge := filepath.Join(t.TempDir(), "huge.bin")
	if err := os.WriteFile(huge, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 16<<30); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.RemoteHome, "up")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	put := d.startTTY(t, "files", "put", limb, huge, filepath.Join(dir, "huge.bin"))
	amount := regexp.MustCompile(`^put huge\.bin \[[= ]+\] +\d+%  ([0-9.]+ [KMG]?i?B) / 16\.0 GiB  `)
	testbed.Eventually(t, 30*time.Second, "three redraws with rising byte counts", func() bool {
		seen := map[string]bool{}
		for _, l := range draws(put.seen()) {
			if m := amount.FindStringSubmatch(l); m != nil && m[1] != "0 B" {
				seen[m[1]] = true
			}
		}
		return len(seen) >= 3
	})
	if r := d.must("transfer", "status", limb); !regexp.MustCompile(`put +[0-9.]+ [KMG]?i?B / 16\.0 GiB `).MatchString(r.stdout) {
		t.Errorf("transfer status does not show the put's total: %v", r)
	}
	if err := put.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	code, screen := put.wait(t)
	if code != wire.ExitConnection {
		t.Errorf("interrupted put: exit %d, terminal %q", code, screen)
	}
	if i := strings.Index(screen, "dvv: TIMEOUT"); i < 0 || !strings.HasSuffix(screen[:i], "\r\x1b[K") {
		t.Errorf("Ctrl+C did not erase the bar before saying why dvv stopped: %q", screen[max(0, len(screen)-300):])
	}
	testbed.Eventually(t, 20*time.Second, "dvvd to stop the interrupted transfer and remove its partial file", func() bool {
		left, _ := os.ReadDir(dir)
		return resp0(t, d, limb).InFlight == 0 && len(left) == 0
	})
}

// TestFilesPutPipeOverInlineLimit: dvv reads a pipe itself to send it
// inline; one carrying more than the inline limit cannot be read again, so
// it is refused instead of handing dvvd the path (which would upload only
// the rest of the stream as if it were the whole file).
func TestFilesPutPipeOverInlineLimit(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)

	fifo := filepath.Join(t.TempDir(), "stream")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	written := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for dvv to open it
		if err == nil {
			_, err = w.Write(make([]byte, 17<<20))
			w.Close()
		}
		written <- err
	}()
	remote := filepath.Join(s.RemoteHome, "stream.bin")
	r := d.dvv("files", "put", limb, fifo, remote)
	wantExit(t, r, wire.ExitUsage, wire.TooLarge)
	if !strings.Contains(r.stderr, "not a regular file") {
		t.Errorf("the refusal does not say why: %v", r)
	}
	if _, err := os.Stat(remote); err == nil {
		t.Error("part of the stream was uploaded as the file")
	}
	<-written // the writer ends with EPIPE once dvv closed the pipe
}
