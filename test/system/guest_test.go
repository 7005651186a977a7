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
	"time"

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
	// A recording keeps what commands print, never their input or
	// environment: neither the cast nor its acts hold them.
	rec := response(t, d.must("record", "start", limb, "--json")).Recordings[0]
	hidden, envSecret := "hidden-input-"+strconv.Itoa(os.Getpid()), "env-secret-"+strconv.Itoa(os.Getpid())
	if r := d.run("shell-a", hidden, []string{}, "run", limb, "--timeout", "10s", "--stdin", "-", "--env", "TOKEN="+envSecret,
		"cat > "+filepath.Join(s.RemoteHome, "hidden")); r.code != 0 {
		t.Fatal(r)
	}
	d.must("record", "stop", limb)
	for _, p := range []string{rec.Path, rec.ActsPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{hidden, envSecret, base64.StdEncoding.EncodeToString([]byte(hidden))} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds a run's input or environment (%q)", p, secret)
			}
		}
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
// is root's on disk, and its input and environment pass through sudo; at
// the deadline the root processes are killed too);
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
	// At the deadline the root processes die too: the login user could not
	// signal them, so the kill goes through sudo as well.
	pidFile := filepath.Join(allowedHome, "root-sleep.pid")
	if r := d.dvv("run", yes, "--timeout-ms", "1500", "--sudo", "echo $$ > "+pidFile+"; exec sleep 1000"); r.code != 124 || !strings.Contains(r.stderr, "was killed") {
		t.Fatalf("a sudo command past its deadline: %v", r)
	}
	pidText, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(pidText))
	testbed.Eventually(t, 5*time.Second, "the root sleep "+pid+" gone", func() bool {
		_, err := os.Stat("/proc/" + pid)
		return os.IsNotExist(err)
	})
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
	// These accounts' login shell is /bin/sh (dash on Debian): the
	// deadline's kill still reaches a background child of the command.
	childFile := filepath.Join(refusedHome, "child.pid")
	if r := d.dvv("run", no, "--timeout-ms", "1500", "sleep 1000 & echo $! > "+childFile+"; wait"); r.code != 124 || !strings.Contains(r.stderr, "was killed") {
		t.Fatalf("a command past its deadline under dash: %v", r)
	}
	childText, err := os.ReadFile(childFile)
	if err != nil {
		t.Fatal(err)
	}
	child := strings.TrimSpace(string(childText))
	testbed.Eventually(t, 5*time.Second, "the background sleep "+child+" gone", func() bool {
		_, err := os.Stat("/proc/" + child)
		return os.IsNotExist(err)
	})
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

// TestFilesStatMatchesStat1: `dvv files stat` says what stat(1) on the
// server says of a file (owned by another uid and gid, setgid), a
// directory, a symbolic link (the link itself, with its target) and an
// empty file: kind, size, mode, owner and modification time.
func TestFilesStatMatchesStat1(t *testing.T) {
	t.Parallel()
	testbed.NeedRoot(t, "giving a file another owner")
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)

	dir := filepath.Join(s.RemoteHome, "statdir")
	file := filepath.Join(s.RemoteHome, "owned.bin")
	link := filepath.Join(s.RemoteHome, "link")
	empty := filepath.Join(s.RemoteHome, "empty")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, make([]byte, 12345), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(file, 4321, 8765); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o2754|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("owned.bin", link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{"regular file": "file", "regular empty file": "file", "directory": "dir", "symbolic link": "link"}
	for _, p := range []string{file, dir, link, empty} {
		out, err := exec.Command("stat", "-c", "%s|%a|%u|%g|%Y|%F", p).Output()
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Split(strings.TrimSpace(string(out)), "|")
		resp := response(t, d.must("files", "stat", limb, p, "--json"))
		st := resp.Files.Stat
		if st == nil {
			t.Fatalf("files stat %s answered no stat: %+v", p, resp.Files)
		}
		mode, _ := strconv.ParseUint(st.Mode, 8, 32)
		want, _ := strconv.ParseUint(f[1], 8, 32)
		got := []string{strconv.FormatInt(st.Size, 10), strconv.FormatUint(mode, 8), strconv.Itoa(st.UID), strconv.Itoa(st.GID), strconv.FormatInt(st.ModTime, 10), st.Kind}
		exp := []string{f[0], strconv.FormatUint(want, 8), f[2], f[3], f[4], kinds[f[5]]}
		if strings.Join(got, "|") != strings.Join(exp, "|") || st.Path != p {
			t.Errorf("files stat %s: %v (path %s), stat(1) says %v", p, got, st.Path, exp)
		}
	}
	if r := response(t, d.must("files", "stat", limb, link, "--json")); r.Files.Stat.Target != "owned.bin" {
		t.Errorf("a link's target: %+v", r.Files.Stat)
	}
	if r := d.must("files", "stat", limb, file); !strings.Contains(r.stdout, "uid: 4321") || !strings.Contains(r.stdout, "mode: 2754") {
		t.Errorf("files stat for people: %v", r)
	}
	wantExit(t, d.dvv("files", "stat", limb, filepath.Join(s.RemoteHome, "absent")), wire.ExitGone, wire.NotFound)
}

// TestFilesReadRangesAndAppendsAreExact: `dvv files read --offset
// --length` gives exactly those bytes of the file on the server's disk
// (clipped at its end, empty at its end, refused past it); `files put
// --append` adds exactly the local bytes to the end of the file on disk,
// a multi-packet append in order, creates a missing file, and sets the
// mode only when one is given.
func TestFilesReadRangesAndAppendsAreExact(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)

	data := make([]byte, 200<<10)
	rand.Read(data)
	remote := filepath.Join(s.RemoteHome, "data.bin")
	if err := os.WriteFile(remote, data, 0o640); err != nil {
		t.Fatal(err)
	}
	n := len(data)
	for _, c := range []struct{ offset, length, from, to int }{
		{0, 10, 0, 10}, {1000, 70000, 1000, 71000}, {n - 5, 100, n - 5, n}, {n, 10, n, n}, {123, -1, 123, n}, {0, 0, 0, 0},
	} {
		args := []string{"files", "read", limb, remote, "--offset", strconv.Itoa(c.offset)}
		if c.length >= 0 {
			args = append(args, "--length", strconv.Itoa(c.length))
		}
		r := d.must(args...)
		if !bytes.Equal([]byte(r.stdout), data[c.from:c.to]) {
			t.Errorf("read offset %d length %d: %d bytes, want bytes %d..%d of the file", c.offset, c.length, len(r.stdout), c.from, c.to)
		}
	}
	wantExit(t, d.dvv("files", "read", limb, remote, "--offset", strconv.Itoa(n+1)), wire.ExitUsage, wire.BadRequest)
	wantExit(t, d.dvv("files", "read", limb, remote, "--offset", "-1"), wire.ExitUsage, wire.BadRequest)

	local := t.TempDir()
	a, b := make([]byte, 100<<10), []byte("tail line\n") // a spans several SFTP packets
	rand.Read(a)
	os.WriteFile(filepath.Join(local, "a"), a, 0o600)
	os.WriteFile(filepath.Join(local, "b"), b, 0o600)
	d.must("files", "put", limb, filepath.Join(local, "a"), remote, "--append")
	d.must("files", "put", limb, filepath.Join(local, "b"), remote, "--append")
	got, err := os.ReadFile(remote)
	if err != nil || !bytes.Equal(got, append(append(append([]byte{}, data...), a...), b...)) {
		t.Fatalf("after two appends the file on disk is %d bytes (%v), want %d: the original then each append in order", len(got), err, n+len(a)+len(b))
	}
	if st, _ := os.Stat(remote); st.Mode().Perm() != 0o640 {
		t.Errorf("an append without --mode changed the mode to %v", st.Mode())
	}
	r := d.run("shell-a", "from stdin\n", nil, "files", "put", limb, "-", remote, "--append", "--mode", "0600")
	if r.code != 0 {
		t.Fatal(r)
	}
	if got, _ := os.ReadFile(remote); !bytes.HasSuffix(got, []byte("tail line\nfrom stdin\n")) || len(got) != n+len(a)+len(b)+len("from stdin\n") {
		t.Errorf("an append from stdin: the file ends %q", got[max(0, len(got)-30):])
	}
	if st, _ := os.Stat(remote); st.Mode().Perm() != 0o600 {
		t.Errorf("an append with --mode 0600 left the mode %v", st.Mode())
	}
	fresh := filepath.Join(s.RemoteHome, "fresh.txt")
	d.must("files", "put", limb, filepath.Join(local, "b"), fresh, "--append")
	if got, err := os.ReadFile(fresh); err != nil || !bytes.Equal(got, b) {
		t.Errorf("an append to a missing file creates it with the bytes: %q (%v)", got, err)
	}
	resp := response(t, d.must("files", "put", limb, filepath.Join(local, "b"), fresh, "--append", "--json"))
	if !resp.Files.Appended || resp.Files.Via != "ssh" {
		t.Errorf("an append's answer: %+v", resp.Files)
	}
}

// TestStatusCarriesTheMachinesFacts: `dvv status` of an SSH limb carries
// the machine's os, arch, hostname, kernel and user, as uname and id say
// them on the server (the bed's sshd runs on this machine).
func TestStatusCarriesTheMachinesFacts(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)

	say := func(args ...string) string {
		out, err := exec.Command(args[0], args[1:]...).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	want := wire.GuestFacts{OS: strings.ToLower(say("uname", "-s")), Arch: say("uname", "-m"), Hostname: say("uname", "-n"),
		Kernel: say("uname", "-r"), User: say("id", "-un"), Via: "ssh"}
	resp := response(t, d.must("status", limb, "--json"))
	if resp.Observation == nil || resp.Observation.Guest == nil || *resp.Observation.Guest != want {
		t.Fatalf("status's machine facts: %+v, want %+v", resp.Observation, want)
	}
	if r := d.must("status", limb); !strings.Contains(r.stdout, want.Kernel) || !strings.Contains(r.stdout, want.Hostname) {
		t.Errorf("status for people names the machine: %v", r)
	}
}
