package system_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// squat is the other user's process: it makes the socket directory first,
// world-readable, listens where the user's dvvd would, logs every byte it
// is sent and answers like a dvvd would, so a client that trusted it would
// go on and send more.
func squat(dir, logPath string) {
	os.Mkdir(dir, 0o755)
	ln, err := net.Listen("unix", filepath.Join(dir, "default.sock"))
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Chmod(filepath.Join(dir, "default.sock"), 0o777)
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(1)
		}
		go func() {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadBytes('\n')
				if len(line) > 0 {
					f, _ := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
					f.Write(line)
					f.Close()
				}
				if err != nil {
					return
				}
				io.WriteString(c, `{"result":"attach","id":1,"daemon":{"version":"x","protocol":1}}`+"\n")
			}
		}()
	}
}

// TestSquattedSocketGetsNothing: another local user (nobody, through
// setpriv) makes the socket directory first and listens in it. dvvd refuses
// to start and names that user; dvv and dvvmcp refuse to send the token, and
// `hosts add --password-stdin` its password, with SOCKET_UNSAFE. With the
// directory handed back to the user (owner and mode right) the socket file
// is still the other user's, and with that fixed too the listening process
// still runs as the other user: each layer refuses on its own.
func TestSquattedSocketGetsNothing(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "setpriv")
	testbed.NeedRoot(t, "running a squatter as another user")
	// A shared, sticky directory like /tmp, reachable by nobody.
	base, err := os.MkdirTemp("/tmp", "dvv-squat-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o1777)
	self, _ := os.Executable()
	squatter := filepath.Join(base, "squatter")
	copyFile(t, self, squatter, 0o755)
	dir, logPath := filepath.Join(base, "dvv"), filepath.Join(base, "received.log")
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", squatter)
	cmd.Env = []string{"DVV_SQUAT_DIR=" + dir, "DVV_SQUAT_LOG=" + logPath}
	testbed.Start(t, "squatter", cmd)
	sock := filepath.Join(dir, "default.sock")
	testbed.WaitFile(t, sock, 10*time.Second)

	home := t.TempDir()
	env := append(cleanEnv(), "HOME="+home, "XDG_RUNTIME_DIR="+base, "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(home, "no-bus"))
	const secret = "dvv_squat-test-token-0123456789"
	received := func() string { b, _ := os.ReadFile(logPath); return string(b) }

	// dvvd refuses the directory and names its owner.
	out, err := runWith(env, "", dvvdBin, "--no-discovery")
	if err == nil || !strings.Contains(out, "nobody") || !strings.Contains(out, dir) {
		t.Fatalf("dvvd started or did not name the owner: %v\n%s", err, out)
	}

	refused := func(stage string, wantMsg string) {
		t.Helper()
		d := &daemon{t: t, env: env}
		r := d.run("shell-a", "", []string{"DVV_TOKEN=" + secret}, "ping")
		wantExit(t, r, wire.ExitDaemon, wire.SocketUnsafe)
		if !strings.Contains(r.stderr, wantMsg) {
			t.Errorf("%s: the message does not say %q: %v", stage, wantMsg, r)
		}
		r = d.run("shell-a", "squat-password-42\n", nil, "hosts", "add", "lab", "--address", "127.0.0.1", "--protocol", "vnc", "--password-stdin")
		wantExit(t, r, wire.ExitDaemon, wire.SocketUnsafe)
		mcpOut := mcpCall(t, append(append([]string{}, env...), "DVV_TOKEN="+secret), "dvv_limbs")
		if !strings.Contains(mcpOut, string(wire.SocketUnsafe)) {
			t.Errorf("%s: dvvmcp did not answer SOCKET_UNSAFE:\n%s", stage, mcpOut)
		}
		if got := received(); got != "" {
			t.Fatalf("%s: the squatter received %q", stage, got)
		}
	}
	refused("directory of another user", "nobody")

	// The directory is the user's again, but the socket file is not.
	if err := os.Chown(dir, 0, 0); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o700)
	refused("socket file of another user", "socket "+sock+" is owned by uid 65534")

	// File and directory are the user's; the listener still is not.
	if err := os.Chown(sock, 0, 0); err != nil {
		t.Fatal(err)
	}
	refused("listener of another user", "runs as uid 65534")
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// runWith runs a program to its end with env and stdin, returning its
// combined output.
func runWith(env []string, stdin string, prog string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mcpCall starts dvvmcp, initializes it, calls one tool and returns the
// tool call's answer line.
func mcpCall(t *testing.T, env []string, tool string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, dvvmcpBin)
	cmd.Env = env
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`+"\n")
	r := bufio.NewReader(outPipe)
	for {
		line, err := r.ReadString('\n')
		if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":2,`) {
			return line
		}
		if err != nil {
			return "dvvmcp ended without answering: " + err.Error()
		}
	}
}
