package system_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// openSSHAs opens the bed's sshd as another local account, through an
// alias in the client's ~/.ssh/config (the address carries no user).
func openSSHAs(t *testing.T, d *daemon, s *testbed.SSHD, user string) string {
	t.Helper()
	alias := "as-" + user
	testbed.AppendLines(t, filepath.Join(s.Home, ".ssh", "config"),
		"Host "+alias, "  HostName "+s.Host, "  Port "+strconv.Itoa(s.Port), "  User "+user)
	r := d.dvv("open", "ssh://"+alias)
	if r.code != 0 {
		t.Fatal(r)
	}
	limb := strings.TrimSpace(r.stdout)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "10000")
	return limb
}

// TestRunStdinAndEnvReachTheCommand: run's --stdin (a file, or dvv's own
// stdin) is what the command reads, byte for byte (the file it writes on
// the server's disk); --env values arrive unchanged however they are
// quoted; a bad name is refused before anything runs; and the input is
// never in the limb's history.
func TestRunStdinAndEnvReachTheCommand(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)

	input := make([]byte, 300<<10) // binary, over one SSH window's packet
	rand.Read(input)
	local := filepath.Join(t.TempDir(), "input.bin")
	if err := os.WriteFile(local, input, 0o600); err != nil {
		t.Fatal(err)
	}
	landed := filepath.Join(s.RemoteHome, "stdin.bin")
	d.must("run", limb, "--timeout", "20s", "--stdin", local, "cat > "+landed)
	if got, err := os.ReadFile(landed); err != nil || !bytes.Equal(got, input) {
		t.Fatalf("the file the command wrote from its stdin: %d bytes (%v), want the %d sent", len(got), err, len(input))
	}

	secret := "stdin-marker-" + strconv.Itoa(os.Getpid())
	r := d.run("shell-a", "b\n"+secret+"\na\n", nil, "run", limb, "--timeout", "10s", "--stdin", "-", "sort")
	if r.code != 0 || r.stdout != "a\nb\n"+secret+"\n" {
		t.Fatalf("sort of dvv's stdin: %v", r)
	}
	if r := d.dvv("run", limb, "--timeout", "10s", "wc -c"); r.code != 0 || strings.TrimSpace(r.stdout) != "0" {
		t.Errorf("without --stdin the command reads end of file at once: %v", r)
	}
	if h := d.must("history", limb, "--json"); strings.Contains(h.stdout, secret) || strings.Contains(h.stdout, base64.StdEncoding.EncodeToString([]byte("b\n"+secret))) {
		t.Errorf("history holds the command's input: %s", h.stdout)
	}

	values := []string{"plain", "two words", `it's "quoted" $(touch /tmp/no) ` + "`x` \\ ;|&", "line1\nline2", "", "über ✓"}
	var args []string
	for i, v := range values {
		args = append(args, "--env", fmt.Sprintf("DVV_V%d=%s", i, v))
	}
	var script []string
	for i := range values {
		script = append(script, fmt.Sprintf(`printf '%%s\0' "$DVV_V%d"`, i))
	}
	r = d.dvv(append(append([]string{"run", limb, "--timeout", "10s"}, args...), strings.Join(script, "; "))...)
	if want := strings.Join(values, "\x00") + "\x00"; r.code != 0 || r.stdout != want {
		t.Fatalf("environment: got %q, want %q (%v)", r.stdout, want, r)
	}
	// A child process sees them too: they are exported, not shell-local.
	if r := d.dvv("run", limb, "--timeout", "10s", "--env", "DVV_CHILD=seen", "sh -c 'printf %s \"$DVV_CHILD\"'"); r.stdout != "seen" {
		t.Errorf("a child process's environment: %v", r)
	}
	marker := filepath.Join(s.RemoteHome, "must-not-exist")
	for _, bad := range []string{"1X=y", "A-B=y", "NOEQUALS", "X;touch " + marker + "=y"} {
		wantExit(t, d.dvv("run", limb, "--timeout", "10s", "--env", bad, "touch "+marker), wire.ExitUsage, wire.BadRequest)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a refused environment still ran the command")
	}
}

// TestRunSudoAllowedAndRefused: --sudo runs the command as root for an
// account that sudoers lets do so without a password (the file it creates
// is root's on disk, and its input and environment pass through sudo);
// for an account without such a rule it is SUDO_REFUSED with the next
// move, and the command never ran. Both accounts and the sudoers drop-in
// are made and removed by the bed.
func TestRunSudoAllowedAndRefused(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	allowed, allowedHome := s.SSHUser(t, true)
	refused, refusedHome := s.SSHUser(t, false)
	d := startDaemonIn(t, "", s.Home)

	yes := openSSHAs(t, d, s, allowed)
	if r := d.must("run", yes, "--timeout", "10s", "id -un"); strings.TrimSpace(r.stdout) != allowed {
		t.Fatalf("without --sudo the command runs as the login user: %v", r)
	}
	made := filepath.Join(allowedHome, "made-by-root")
	r := d.run("shell-a", "from stdin", nil, "run", yes, "--timeout", "20s", "--sudo", "--env", "DVV_WHO=root's", "--stdin", "-",
		`id -u; printf '%s' "$DVV_WHO"; cat > `+made)
	if r.code != 0 || r.stdout != "0\nroot's" {
		t.Fatalf("sudo run: %v", r)
	}
	if owner := statOwner(t, made); owner != "0:0" {
		t.Errorf("the file the sudo command made belongs to %s, want root (0:0)", owner)
	}
	if b, _ := os.ReadFile(made); string(b) != "from stdin" {
		t.Errorf("stdin through sudo: %q", b)
	}
	resp := response(t, d.dvv("run", yes, "--timeout", "10s", "--sudo", "--json", "true"))
	if resp.Run == nil || !resp.Run.Sudo || resp.Run.Via != "ssh" {
		t.Errorf("a sudo answer says it ran as root and over which channel: %+v", resp.Run)
	}
	// The command's own exit 1 is not mistaken for a refusal.
	if r := d.dvv("run", yes, "--timeout", "10s", "--sudo", "echo own >&2; exit 1"); r.code != 1 || r.stderr != "own\n" {
		t.Errorf("a sudo command's own exit 1: %v", r)
	}

	no := openSSHAs(t, d, s, refused)
	never := filepath.Join(refusedHome, "never")
	r = d.dvv("run", no, "--timeout", "10s", "--sudo", "touch "+never)
	wantExit(t, r, wire.ExitDenied, wire.SudoRefused)
	resp = response(t, d.dvv("run", no, "--timeout", "10s", "--sudo", "--json", "touch "+never))
	if e := resp.Err(); e == nil || e.Code != wire.SudoRefused || !strings.Contains(e.Next, "NOPASSWD") {
		t.Errorf("the refusal's code and next move: %+v", e)
	}
	if _, err := os.Stat(never); err == nil {
		t.Errorf("the refused command ran anyway")
	}
	if r := d.must("run", no, "--timeout", "10s", "touch "+never); r.code != 0 {
		t.Errorf("without sudo the same account runs it: %v", r)
	}
	if owner := statOwner(t, never); owner == "0:0" {
		t.Errorf("the command without sudo made a root file")
	}
}

// statOwner is uid:gid as stat(1) reads them on the server's disk.
func statOwner(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("stat", "-c", "%u:%g", path).Output()
	if err != nil {
		t.Fatalf("stat %s: %v", path, err)
	}
	return strings.TrimSpace(string(out))
}
