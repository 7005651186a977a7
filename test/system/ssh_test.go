package system_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// openSSH opens a terminal limb to sshd and waits until it is connected.
func openSSH(t *testing.T, d *daemon, s *testbed.SSHD) string {
	t.Helper()
	r := d.dvv("open", "ssh://"+s.Addr)
	if r.code != 0 {
		t.Fatal(r)
	}
	limb := strings.TrimSpace(r.stdout)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "10000")
	return limb
}

// TestSSHRunTermFiles: dvv run exits with the remote status and splits the
// streams; terminal input and output; files both ways over SFTP.
func TestSSHRunTermFiles(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)

	r := d.dvv("run", limb, "--timeoutMs", "10000", "echo out; echo err >&2; exit 3")
	if r.code != 3 || r.stdout != "out\n" || r.stderr != "err\n" {
		t.Errorf("run: %v", r)
	}
	if r := d.dvv("run", limb, "--timeout-ms", "10000", "true"); r.code != 0 {
		t.Errorf("run true: %v", r)
	}
	if r := d.dvv("run", limb, "--timeout-ms", "10000", "kill -KILL $$"); r.code != 128+9 {
		t.Errorf("run killed by SIGKILL: %v", r)
	}
	if r := d.dvv("run", limb, "--timeout-ms", "300", "sleep 20"); r.code != 124 {
		t.Errorf("run past its deadline: %v", r)
	}
	resp := response(t, d.dvv("run", limb, "--timeout-ms", "10000", "--json", "printf abc"))
	if resp.Run == nil || resp.Run.Stdout != "abc" || resp.Run.ExitCode == nil || *resp.Run.ExitCode != 0 {
		t.Errorf("run --json: %+v", resp.Run)
	}
	wantExit(t, d.dvv("click", limb, "1", "1", "--generation", "1"), wire.ExitUnsupported, wire.WrongProtocol)

	// Terminal input needs the lease; output is read back by wait and term read.
	wantExit(t, d.dvv("term", "send", limb, "echo $((6*7))\n"), wire.ExitLease, wire.LeaseNotHeld)
	d.must("control", "acquire", limb)
	d.must("term", "send", limb, "echo $((6*7))-done\n")
	d.must("wait", limb, "--until", "text", "--text", "42-done", "--timeout-ms", "10000")
	r = d.must("term", "read", limb)
	if !strings.Contains(r.stdout, "42-done") || !strings.Contains(r.stderr, "cursor: ") {
		t.Errorf("term read: %v", r)
	}
	if r := d.must("screen", limb); !strings.Contains(r.stdout, "42-done") {
		t.Errorf("screen of a terminal: %v", r)
	}

	// Files: put, list, get back, rename, remove.
	local := filepath.Join(t.TempDir(), "local.txt")
	content := "dvv files over sftp\n"
	if err := os.WriteFile(local, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	remote := filepath.Join(s.RemoteHome, "up.txt")
	d.must("files", "put", limb, local, remote, "--mode", "0640")
	if b, err := os.ReadFile(remote); err != nil || string(b) != content {
		t.Fatalf("the uploaded file holds %q (%v)", b, err)
	}
	if fi, _ := os.Stat(remote); fi == nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode of the uploaded file: %v", fi)
	}
	if r := d.must("files", "ls", limb, s.RemoteHome); !strings.Contains(r.stdout, "up.txt") {
		t.Errorf("files ls: %v", r)
	}
	back := filepath.Join(t.TempDir(), "back.txt")
	d.must("files", "get", limb, remote, back)
	if b, _ := os.ReadFile(back); string(b) != content {
		t.Errorf("files get brought %q", b)
	}
	if r := d.must("files", "get", limb, remote, "-"); r.stdout != content {
		t.Errorf("files get to stdout: %v", r)
	}
	d.run("shell-a", "from stdin", nil, "files", "put", limb, "-", filepath.Join(s.RemoteHome, "stdin.txt"))
	if b, _ := os.ReadFile(filepath.Join(s.RemoteHome, "stdin.txt")); string(b) != "from stdin" {
		t.Errorf("files put - wrote %q", b)
	}
	d.must("files", "mv", limb, remote, remote+".old")
	d.must("files", "rm", limb, remote+".old")
	if _, err := os.Stat(remote + ".old"); !os.IsNotExist(err) {
		t.Errorf("files rm left the file: %v", err)
	}
	wantExit(t, d.dvv("files", "get", limb, filepath.Join(s.RemoteHome, "missing"), back), wire.ExitGone, "")
	if r := d.must("files", "home", limb); strings.TrimSpace(r.stdout) == "" {
		t.Errorf("files home: %v", r)
	}
	// A token without local.files: dvvd refuses to touch local paths, and
	// dvv moves the file itself.
	secret := strings.TrimSpace(d.must("token", "create", "--role", "owner", "--label", "no-local").stdout)
	asToken := func(args ...string) result { return d.run("shell-tok", "", []string{"DVV_TOKEN=" + secret}, args...) }
	tokBack := filepath.Join(t.TempDir(), "tok-back.txt")
	if r := asToken("files", "get", limb, filepath.Join(s.RemoteHome, "stdin.txt"), tokBack); r.code != 0 {
		t.Fatal(r)
	}
	if b, _ := os.ReadFile(tokBack); string(b) != "from stdin" {
		t.Errorf("files get with a token brought %q", b)
	}
	if r := asToken("files", "put", limb, local, filepath.Join(s.RemoteHome, "tok-up.txt")); r.code != 0 {
		t.Fatal(r)
	}
	if b, _ := os.ReadFile(filepath.Join(s.RemoteHome, "tok-up.txt")); string(b) != content {
		t.Errorf("files put with a token wrote %q", b)
	}
	wantExit(t, asToken("run", limb, "--timeout-ms", "1000", "true"), wire.ExitDenied, wire.PolicyDenied)
	// Input to a terminal is running commands: without exec, term send,
	// type and key on it are refused, and nothing reaches the shell.
	for _, args := range [][]string{{"term", "send", limb, "touch " + filepath.Join(s.RemoteHome, "pwned") + "\n"},
		{"type", limb, "touch " + filepath.Join(s.RemoteHome, "pwned")}, {"key", limb, "Enter"}} {
		r := asToken(args...)
		wantExit(t, r, wire.ExitDenied, wire.PolicyDenied)
		if !strings.Contains(r.stderr, `"exec"`) {
			t.Errorf("%v: the denial does not name exec: %v", args, r)
		}
	}
	if _, err := os.Stat(filepath.Join(s.RemoteHome, "pwned")); err == nil {
		t.Error("terminal input without exec reached the shell")
	}

	if r := d.must("transfer", "status", limb); !strings.Contains(r.stdout, "no transfer") {
		t.Errorf("transfer status: %v", r)
	}

	// The shell exits: wait --until exit reports its status.
	d.must("term", "send", limb, "exit 5\n")
	r = d.must("wait", limb, "--until", "exit", "--timeout-ms", "10000")
	if !strings.Contains(r.stdout, "exit status: 5") {
		t.Errorf("wait --until exit: %v", r)
	}
}

// TestSSHTrust: an unknown host key stops the limb with HOSTKEY_UNKNOWN
// (class 10) whose hint names the exact `dvv hosts trust … --fingerprint`
// command; running it trusts the key and a reconnect succeeds.
func TestSSHTrust(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
	d := startDaemonIn(t, "", s.Home)
	limb := strings.TrimSpace(d.must("open", "ssh://"+s.Addr, "--wait=false").stdout)
	r := d.dvv("wait", limb, "--until", "connected", "--timeout-ms", "10000")
	wantExit(t, r, wire.ExitTrust, wire.HostKeyUnknown)
	_, hint, _ := strings.Cut(r.stderr, "next: ")
	_, command, _ := strings.Cut(hint, "`dvv ")
	command, _, _ = strings.Cut(command, "`")
	if !strings.HasPrefix(command, "hosts trust "+s.Addr+" --fingerprint SHA256:") {
		t.Fatalf("the hint names no trust command with the fingerprint: %v", r)
	}
	if r := d.must(strings.Fields(command)...); !strings.Contains(r.stdout, "SHA256:") {
		t.Errorf("hosts trust: %v", r)
	}
	d.must("reconnect", limb, "--timeout-ms", "10000")
	if r := d.dvv("run", limb, "--timeout-ms", "10000", "echo trusted"); r.code != 0 || r.stdout != "trusted\n" {
		t.Errorf("run after trust: %v", r)
	}
}
