package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// GNU-style flags through cobra, like dvv's.
func TestFlags(t *testing.T) {
	if code, out, _ := runMain("--version"); code != 0 || out != "dvvd 0.1.0-dev\n" {
		t.Errorf("--version: %d %q", code, out)
	}
	if code, out, _ := runMain("--help"); code != 0 || !strings.Contains(out, "--fence-threshold float") || strings.Contains(out, "Usage of") {
		t.Errorf("--help: %d %q", code, out)
	}
	if code, _, errs := runMain("-id", "x"); code != 2 || !strings.Contains(errs, "unknown shorthand flag") {
		t.Errorf("single-dash long flag: %d %q", code, errs)
	}
	if code, _, errs := runMain("stray"); code != 2 || !strings.Contains(errs, "dvvd --help") {
		t.Errorf("stray argument: %d %q", code, errs)
	}
	if code, _, errs := runMain("--log-level", "loud", "--socket", filepath.Join(t.TempDir(), "s.sock")); code != 2 || !strings.Contains(errs, "bad --log-level") {
		t.Errorf("bad log level: %d %q", code, errs)
	}
}

// --viewer-addr takes a port on 127.0.0.1 and nothing else.
func TestViewerAddr(t *testing.T) {
	for addr, want := range map[string]int{"8123": 8123, ":8123": 8123, "127.0.0.1:8123": 8123, "localhost:8123": 8123, "127.0.0.1:0": 0} {
		if got, err := parseViewerAddr(addr); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", addr, got, err, want)
		}
	}
	for addr, say := range map[string]string{"0.0.0.0:8123": "127.0.0.1 only", "[::1]:8123": "127.0.0.1 only", "192.168.1.5:80": "127.0.0.1 only",
		"127.0.0.1:http": "from 0 to 65535", "70000": "from 0 to 65535", "127.0.0.1:-1": "from 0 to 65535", "a:b:c": "127.0.0.1:PORT"} {
		if _, err := parseViewerAddr(addr); err == nil || !strings.Contains(err.Error(), say) {
			t.Errorf("%q: %v, want an error saying %q", addr, err, say)
		}
	}
	if code, _, errs := runMain("--viewer-addr", "0.0.0.0:8080", "--socket", filepath.Join(t.TempDir(), "s.sock")); code != 2 || !strings.Contains(errs, "bad --viewer-addr") {
		t.Errorf("--viewer-addr 0.0.0.0:8080: %d %q", code, errs)
	}
}

// Socket activation: the real dvvd binary serves a socket bound by its
// parent and passed as fd 3 with LISTEN_PID/LISTEN_FDS, as systemd does.
func TestSocketActivation(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "dvvd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// The client refuses a socket in a directory others can enter.
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(run, "activated.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.File()
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close() // the copy in f keeps the socket bound
	// sh's $$ is the pid dvvd keeps after exec.
	cmd := exec.Command("sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" --no-discovery --log-level debug`, bin)
	cmd.ExtraFiles = []*os.File{f}
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, sock, client.Options{Name: "test"})
	if err != nil {
		t.Fatalf("dial the activated socket: %v\n%s", err, logs.String())
	}
	defer c.Close()
	resp, err := client.Call[wiretest.Response](ctx, c, wire.PingArgs{}) // the line itself: result is the op
	if err != nil || resp.Result != wire.OpPing {
		t.Fatalf("ping: %+v %v", resp, err)
	}
	if c.Info == nil || c.Info.PID != cmd.Process.Pid {
		t.Fatalf("answered by %+v, not the started dvvd (pid %d)", c.Info, cmd.Process.Pid)
	}
}
