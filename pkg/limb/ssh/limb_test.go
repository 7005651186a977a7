package ssh

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

func testOpts(s *testbed.SSHD) Options {
	return Options{Home: s.Home, AgentSocket: "none", ConfigFiles: []string{filepath.Join(s.Home, ".ssh", "config")}}
}

func target(s *testbed.SSHD) limb.Target {
	return limb.Target{Protocol: wire.ProtoSSH, Address: s.Host, Port: s.Port}
}

func openTerm(t *testing.T, s *testbed.SSHD) limb.Terminal {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	term, err := testOpts(s).DialTerminal(ctx, target(s))
	if err != nil {
		t.Fatalf("DialTerminal: %v", err)
	}
	t.Cleanup(func() { term.Close() })
	return term
}

func code(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

// readAll drains the ring from since with small reads, as a client would.
func readAll(t *testing.T, term limb.Terminal, since uint64) ([]byte, uint64) {
	var out []byte
	for {
		data, next, lost, err := term.Read(since, 4096)
		if err != nil || lost != 0 {
			t.Fatalf("Read(%d): lost %d err %v", since, lost, err)
		}
		out = append(out, data...)
		if next == since {
			return out, next
		}
		since = next
	}
}

func gridText(term limb.Terminal) string {
	rows, _, _ := term.Grid()
	return strings.Join(rows, "\n")
}

func TestTerminal(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	term := openTerm(t, s)
	if c, r := term.Size(); c != DefaultCols || r != DefaultRows {
		t.Fatalf("size %dx%d", c, r)
	}
	term.Send([]byte("export PS1='$ '; echo READY-$((6*7))\n"))
	testbed.Eventually(t, 10*time.Second, "the shell prompt", func() bool { return strings.Contains(gridText(term), "READY-42") })

	t.Run("3000 lines scroll past the grid and come back through Read", func(t *testing.T) {
		_, start := readAll(t, term, 0)
		term.Send([]byte("seq 1 3000; echo SEQ-DONE\n"))
		var got []byte
		testbed.Eventually(t, 10*time.Second, "seq output", func() bool {
			var chunk []byte
			chunk, start = readAll(t, term, start)
			got = append(got, chunk...)
			return bytes.Contains(got, []byte("\r\nSEQ-DONE"))
		})
		text := strings.ReplaceAll(string(got), "\r\n", "\n")
		for _, want := range []string{"\r1\n2\n3\n", "\n1500\n", "\n2999\n3000\n"} {
			if !strings.Contains(text, want) {
				t.Fatalf("scrollback lacks %q; starts %q", want, text[:min(len(text), 300)])
			}
		}
		if strings.Contains(gridText(term), "\n1\n") {
			t.Fatalf("line 1 should have scrolled off the %d-row grid", DefaultRows)
		}
	})

	t.Run("Ctrl+C interrupts a running command", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), "sleeping")
		// The marker is made by the process that then becomes sleep, so
		// Ctrl+C cannot land between two commands of the line.
		term.Send([]byte("sh -c 'touch " + marker + "; exec sleep 100'; echo NOT-INTERRUPTED\n"))
		testbed.WaitFile(t, marker, 10*time.Second)
		changed := term.Changed()
		term.Send([]byte{0x03})
		<-changed
		term.Send([]byte("echo AFTER-$((1+1))\n"))
		testbed.Eventually(t, 10*time.Second, "the prompt after Ctrl+C", func() bool {
			return strings.Contains(gridText(term), "AFTER-2")
		})
		if strings.Contains(gridText(term), "\nNOT-INTERRUPTED") {
			t.Fatal("sleep was not interrupted")
		}
	})

	t.Run("grid and cursor", func(t *testing.T) {
		term.Send([]byte("clear; printf 'ab\\tc'\n"))
		testbed.Eventually(t, 10*time.Second, "cleared screen", func() bool {
			rows, x, y := term.Grid()
			return strings.HasPrefix(rows[0], "$ clear") == false && strings.Contains(rows[0], "ab      c") && y == 0 && x > 0
		})
	})

	t.Run("wide characters keep their columns", func(t *testing.T) {
		term.Send([]byte("clear; printf '\\346\\274\\242\\345\\255\\227|x\\n'\n"))
		testbed.Eventually(t, 10*time.Second, "wide text", func() bool {
			rows, _, _ := term.Grid()
			return rows[0] == "漢字|x"
		})
	})

	t.Run("a future cursor is refused", func(t *testing.T) {
		_, _, _, err := term.Read(1<<40, 10)
		if code(err) != wire.BadRequest {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("run on the warm connection", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err := term.Run(ctx, `printf '\377x'; echo e >&2; exit 7`, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.ExitCode == nil || *r.ExitCode != 7 || r.StdoutBase64 != "/3g=" || r.Stderr != "e\n" || r.Cwd != "~" {
			t.Fatalf("got %+v", r)
		}
		_, err = term.Run(context.Background(), "true", "", 0)
		if code(err) != wire.BadRequest {
			t.Fatalf("run without a deadline: %v", err)
		}
		_, err = term.Run(ctx, "true", "/no/such/dir", 0)
		if code(err) != wire.NotFound {
			t.Fatalf("missing cwd: %v", err)
		}
		r, err = term.Run(ctx, "kill -9 $$", "", 0)
		if err != nil || r.Signal != "SIGKILL" || r.ExitCode != nil {
			t.Fatalf("signal: %+v %v", r, err)
		}
	})

	t.Run("exit", func(t *testing.T) {
		term.Send([]byte("exit 5\n"))
		testbed.Eventually(t, 10*time.Second, "the shell to exit", func() bool {
			_, ok := term.Exited()
			return ok
		})
		if c, _ := term.Exited(); c != 5 {
			t.Fatalf("exit status %d", c)
		}
		if err := term.Send([]byte("x")); code(err) != wire.NotConnected {
			t.Fatalf("send after exit: %v", err)
		}
	})
}

func TestScrollbackOverrun(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	o := testOpts(s)
	o.Scrollback = 4096
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	term, err := o.DialTerminal(ctx, target(s))
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	term.Send([]byte("seq 1 5000; echo OVER-DONE\n"))
	testbed.Eventually(t, 10*time.Second, "output", func() bool {
		d, _, _, _ := term.Read(0, 0)
		return bytes.Contains(d, []byte("\nOVER-DONE"))
	})
	data, next, lost, err := term.Read(0, 0)
	if err != nil || lost <= 0 || len(data) != 4096 || next != uint64(lost)+4096 {
		t.Fatalf("len %d next %d lost %d err %v", len(data), next, lost, err)
	}
}

func TestFiles(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	term := openTerm(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fs, err := term.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	home, err := fs.Home()
	if err != nil || !filepath.IsAbs(home) {
		t.Fatalf("home %q %v", home, err)
	}
	if p, _ := fs.Resolve("~/x/y"); p != filepath.Join(home, "x/y") {
		t.Fatalf("~/x/y resolved to %q", p)
	}
	if _, err := fs.Resolve("~root/x"); code(err) != wire.BadRequest {
		t.Fatalf("~user: %v", err)
	}
	dir := t.TempDir()

	t.Run("put and get byte for byte with modes", func(t *testing.T) {
		for i, size := range []int{0, 1, 32 << 10, 3<<20 + 17} {
			want := make([]byte, size)
			rand.Read(want)
			p := filepath.Join(dir, fmt.Sprintf("f%d", i))
			mode := []uint32{0o600, 0o755, 0o640, 0o4711}[i]
			n, err := fs.Put(p, bytes.NewReader(want), mode)
			if err != nil || n != int64(size) {
				t.Fatalf("put %d: n %d err %v", size, n, err)
			}
			got, _ := os.ReadFile(p)
			st, _ := os.Stat(p)
			if !bytes.Equal(got, want) || uint32(st.Mode().Perm()) != mode&0o777 {
				t.Fatalf("put %d: content equal %v, mode %o want %o", size, bytes.Equal(got, want), st.Mode(), mode)
			}
			var buf bytes.Buffer
			if n, err := fs.Get(p, &buf, 0); err != nil || n != int64(size) || !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("get %d: n %d err %v", size, n, err)
			}
			list, err := fs.List(p)
			if err != nil || len(list) != 1 || list[0].Mode != fmt.Sprintf("%04o", mode) || list[0].Kind != "file" {
				t.Fatalf("list %s: %+v %v", p, list, err)
			}
		}
		var buf bytes.Buffer
		if _, err := fs.Get(filepath.Join(dir, "f3"), &buf, 1000); code(err) != wire.TooLarge || buf.Len() != 0 {
			t.Fatalf("get over max: %v (%d bytes written)", err, buf.Len())
		}
	})

	t.Run("mkdir, list, rename, remove", func(t *testing.T) {
		d := filepath.Join(dir, "a/b")
		if err := fs.Mkdir(d); err != nil {
			t.Fatal(err)
		}
		if err := fs.Mkdir(d); err != nil {
			t.Fatalf("mkdir of an existing directory: %v", err)
		}
		fs.Put(d+"/one", strings.NewReader("1"), 0o644)
		if err := fs.Rename(d+"/one", d+"/two"); err != nil {
			t.Fatal(err)
		}
		list, err := fs.List(d)
		if err != nil || len(list) != 1 || list[0].Name != "two" || list[0].Path != d+"/two" {
			t.Fatalf("list: %+v %v", list, err)
		}
		err = fs.Remove(filepath.Join(dir, "a"), false)
		if code(err) != wire.BadRequest || !strings.Contains(err.Error(), "recursive") {
			t.Fatalf("non-recursive remove of a full directory: %v", err)
		}
		if _, err := os.Stat(d + "/two"); err != nil {
			t.Fatal("refused remove deleted something")
		}
		if err := fs.Remove(filepath.Join(dir, "a"), true); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "a")); !os.IsNotExist(err) {
			t.Fatal("recursive remove left the directory")
		}
		if _, err := fs.List(filepath.Join(dir, "a")); code(err) != wire.NotFound {
			t.Fatalf("list of a missing path: %v", err)
		}
		if err := fs.Remove(filepath.Join(dir, "a"), false); code(err) != wire.NotFound {
			t.Fatalf("remove of a missing path: %v", err)
		}
	})
}

func TestSidecar(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	o := testOpts(s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	vncTarget := limb.Target{Protocol: wire.ProtoVNC, Address: s.Host, Port: 5901, SSHPort: s.Port, Password: "vnc-secret"}
	fs, err := o.DialFiles(ctx, vncTarget)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "via-sidecar")
	if _, err := fs.Put(p, strings.NewReader("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello" {
		t.Fatalf("got %q", b)
	}
	fs.Close()

	t.Run("no SSH server", func(t *testing.T) {
		tg := vncTarget
		tg.SSHPort = testbed.FreePort(t)
		_, err := o.DialFiles(ctx, tg)
		if code(err) != wire.FilesUnavailable || !strings.Contains(err.Error(), "no SSH server") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("host key not trusted", func(t *testing.T) {
		u := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
		tg := vncTarget
		tg.SSHPort = u.Port
		uo := testOpts(u)
		_, err := uo.DialFiles(ctx, tg)
		var we *wire.Error
		if code(err) != wire.FilesUnavailable || !errors.As(err, &we) || !strings.HasPrefix(we.Fingerprint, "SHA256:") ||
			!strings.Contains(err.Error(), fmt.Sprintf("dvv hosts trust %s:%d --fingerprint %s", u.Host, u.Port, we.Fingerprint)) {
			t.Fatalf("got %#v", err)
		}
		// The fingerprint the refusal carries is the one the check accepts.
		fp, already, err := uo.TrustHostKeyChecked(fmt.Sprintf("%s:%d", u.Host, u.Port), 0, we.Fingerprint, false)
		if err != nil || fp != we.Fingerprint || already {
			t.Fatalf("trust: %q %v %v", fp, already, err)
		}
		fs, err := uo.DialFiles(ctx, tg)
		if err != nil {
			t.Fatalf("after trust: %v", err)
		}
		fs.Close()
	})
	t.Run("auth failed", func(t *testing.T) {
		a := testbed.StartSSHD(t)
		os.Remove(filepath.Join(a.Home, ".ssh", "id_ed25519"))
		tg := vncTarget
		tg.SSHPort = a.Port
		_, err := testOpts(a).DialFiles(ctx, tg)
		if code(err) != wire.FilesUnavailable || !strings.Contains(err.Error(), "authentication failed") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestDialErrors(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	other := filepath.Join(t.TempDir(), "other")
	testbed.Keygen(t, other, "ed25519")
	pub, _ := os.ReadFile(other + ".pub")
	os.WriteFile(filepath.Join(s.Home, ".ssh", "known_hosts"), []byte(s.KnownHostsLine(strings.Join(strings.Fields(string(pub))[:2], " "))), 0o600)
	_, err := testOpts(s).DialTerminal(ctx, target(s))
	if code(err) != wire.HostKeyChanged || !strings.Contains(err.Error(), "CHANGED") {
		t.Fatalf("changed key: %v", err)
	}
	if _, _, err := testOpts(s).TrustHostKeyChecked(s.Host, s.Port, "", true); code(err) != wire.HostKeyChanged {
		t.Fatalf("trust over a changed key: %v", err)
	}
	_, err = testOpts(s).DialTerminal(ctx, limb.Target{Address: "127.0.0.1", Port: testbed.FreePort(t)})
	if code(err) != wire.Unreachable {
		t.Fatalf("closed port: %v", err)
	}
}

func TestServerKilledMidRun(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	term := openTerm(t, s)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, err := term.Run(ctx, "exec sleep 1013", "", 0)
		done <- err
	}()
	// Kill the server once the command runs on it, not at a guessed moment.
	testbed.Eventually(t, 20*time.Second, "the remote command to start", func() bool {
		return exec.Command("pgrep", "-f", "^sleep 1013$").Run() == nil
	})
	s.KillAll()
	if err := <-done; code(err) != wire.NotConnected {
		t.Fatalf("got %v", err)
	}
	<-term.Done()
	if code(term.Err()) != wire.NotConnected {
		t.Fatalf("Err: %v", term.Err())
	}
	if err := term.Send([]byte("x")); code(err) != wire.NotConnected {
		t.Fatalf("send on a dead limb: %v", err)
	}
}

func TestSessionsExhausted(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDConfig("MaxSessions 2"))
	term := openTerm(t, s) // the shell holds one session
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	marker := filepath.Join(t.TempDir(), "running")
	go func() { _, err := term.Run(ctx, "touch "+marker+"; sleep 3", "", 0); done <- err }()
	testbed.WaitFile(t, marker, 10*time.Second)
	testbed.Eventually(t, 3*time.Second, "BUSY while both sessions are in use", func() bool {
		_, err := term.Run(ctx, "true", "", 0)
		return code(err) == wire.Busy
	})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// sshd frees the session a moment after the channel closes.
	testbed.Eventually(t, 5*time.Second, "a run once the session is free", func() bool {
		r, err := term.Run(ctx, "true", "", 0)
		return err == nil && *r.ExitCode == 0
	})
}
