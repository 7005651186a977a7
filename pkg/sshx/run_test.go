package sshx

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

func TestRunSemantics(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	c := dialT(t, testOptions(s))
	dir := t.TempDir()

	t.Run("signal", func(t *testing.T) {
		r := runT(t, c, "kill -9 $$", RunOptions{})
		if r.ExitCode != nil || r.Signal != "KILL" {
			t.Fatalf("want signal KILL and no code, got code %v signal %q", r.ExitCode, r.Signal)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		// The deadline is ended by hand once the command is seen running
		// (a marker file), so the test does not depend on timing.
		runUntil := func(cmd, marker string) *RunResult {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				for i := 0; i < 2000; i++ {
					if _, err := os.Stat(marker); err == nil {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				cancel()
			}()
			r, err := c.Run(ctx, cmd, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		r := runUntil("echo started; touch "+dir+"/m1; sleep 100", dir+"/m1")
		if !r.TimedOut || r.ExitCode != nil || r.Signal != "" || r.Note == "" {
			t.Fatalf("want timed out with no status, got %+v", r)
		}
		if string(r.Stdout) != "started\n" {
			t.Errorf("output before the deadline lost: %q", r.Stdout)
		}
		// The command's whole process group is killed, not just orphaned.
		pidFile := dir + "/bg.pid"
		if r := runUntil("sleep 100 & echo $! > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; wait", pidFile); !r.TimedOut {
			t.Fatalf("%+v", r)
		}
		testbed.Eventually(t, 5*time.Second, "the background sleep to die", func() bool {
			r := runT(t, c, "ps -o stat= -p $(cat "+pidFile+") | grep -v Z", RunOptions{})
			return r.ExitCode != nil && *r.ExitCode != 0
		})
	})
	t.Run("truncation", func(t *testing.T) {
		r := runT(t, c, "head -c 100000 /dev/zero; head -c 5000 /dev/zero >&2", RunOptions{MaxOutput: 1000})
		if len(r.Stdout) != 1000 || r.StdoutDropped != 99000 || len(r.Stderr) != 1000 || r.StderrDropped != 4000 {
			t.Fatalf("got %d+%d / %d+%d", len(r.Stdout), r.StdoutDropped, len(r.Stderr), r.StderrDropped)
		}
	})
	t.Run("default cap under a flood", func(t *testing.T) {
		r := runT(t, c, "head -c 20000000 /dev/zero", RunOptions{})
		if len(r.Stdout) != DefaultMaxOutput || r.StdoutDropped != 20000000-DefaultMaxOutput {
			t.Fatalf("got %d kept, %d dropped", len(r.Stdout), r.StdoutDropped)
		}
	})
	t.Run("cwd", func(t *testing.T) {
		r := runT(t, c, "pwd", RunOptions{Cwd: dir})
		if string(r.Stdout) != dir+"\n" {
			t.Fatalf("pwd in %s gave %q", dir, r.Stdout)
		}
		r = runT(t, c, "pwd", RunOptions{Cwd: "~"})
		home := runT(t, c, `printf '%s\n' "$HOME"`, RunOptions{})
		if !bytes.Equal(r.Stdout, home.Stdout) {
			t.Fatalf("~ gave %q, home is %q", r.Stdout, home.Stdout)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := c.Run(ctx, "touch should-not-exist", RunOptions{Cwd: dir + "/no such dir"})
		var ce *CwdError
		if !errors.As(err, &ce) || ce.Reason == "" {
			t.Fatalf("want CwdError, got %v", err)
		}
		// The command's own exit 1 is not mistaken for a cd failure.
		r = runT(t, c, "echo x >&2; exit 1", RunOptions{Cwd: dir})
		if r.ExitCode == nil || *r.ExitCode != 1 {
			t.Fatalf("got %+v", r)
		}
	})
	t.Run("binary output", func(t *testing.T) {
		r := runT(t, c, `printf '\377\376\000ok'`, RunOptions{})
		if !bytes.Equal(r.Stdout, []byte{0xff, 0xfe, 0, 'o', 'k'}) {
			t.Fatalf("got %q", r.Stdout)
		}
	})
}

func TestServerKilledMidRun(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	o := testOptions(s)
	o.KeepAlive = 500 * time.Millisecond
	c := dialT(t, o)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, err := c.Run(ctx, "echo up; exec sleep 1017", RunOptions{})
		done <- err
	}()
	// Kill the server once the command runs on it, not at a guessed moment.
	testbed.Eventually(t, 20*time.Second, "the remote command to start", func() bool {
		return exec.Command("pgrep", "-f", "^sleep 1017$").Run() == nil
	})
	s.KillAll()
	select {
	case err := <-done:
		var cl *ConnLostError
		if !errors.As(err, &cl) {
			t.Fatalf("want ConnLostError, got %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not notice the dead server")
	}
	<-c.Done()
}
