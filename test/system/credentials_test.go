package system_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestPasswordFromCredentialsFile: a dvvd with no keychain at all (no
// session bus) dials a password-protected Xvnc with the password from
// ~/.config/dvv/credentials; a file others can read is refused; no answer
// and no log line carries the password.
func TestPasswordFromCredentialsFile(t *testing.T) {
	t.Parallel()
	const password = "Cf7-headless"
	x := testbed.StartXvnc(t, testbed.XvncOptions{Password: password})
	d := startDaemon(t, "")
	var said strings.Builder
	run := func(args ...string) result {
		r := d.dvv(args...)
		said.WriteString(r.stdout + r.stderr)
		return r
	}
	if r := run("hosts", "add", "lab", "--address", "127.0.0.1", "--port", strconv.Itoa(x.Port), "--protocol", "vnc"); r.code != 0 {
		t.Fatal(r)
	}
	cred := filepath.Join(d.home, ".config", "dvv", "credentials")
	if err := os.WriteFile(cred, []byte("# headless lab\nlab:"+password+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(cred, 0o644)
	r := run("open", "lab", "--wait", "--wait-timeout", "20s")
	wantExit(t, r, wire.ExitDenied, wire.KeychainMissing)
	if !strings.Contains(r.stderr, "chmod 600 "+cred) {
		t.Errorf("refusal of a readable file: %v", r)
	}

	os.Chmod(cred, 0o600)
	r = run("open", "lab", "--wait", "--wait-timeout", "20s")
	if r.code != 0 {
		t.Fatal(r)
	}
	limb := strings.TrimSpace(r.stdout)
	run("status", limb, "--json")
	run("hosts", "--json")
	run("limbs", "--json")
	if !strings.Contains(said.String(), `"hasCredential":true`) {
		t.Errorf("hosts does not show the file's credential: %s", said.String())
	}
	if strings.Contains(said.String(), password) || strings.Contains(d.log(), password) {
		t.Fatalf("the password left dvvd")
	}
}

// TestHostsAddWithoutKeychainWritesTheCredentialsFile: dvvd with no
// session bus (no keychain): `hosts add --password-stdin` saves the host
// and its password in ~/.config/dvv/credentials (mode 0600, the host's
// line only), says so, and `open NAME` logs in to the real VncAuth Xvnc
// with it. A group-readable credentials file is refused with the chmod
// to run, and nothing is saved.
func TestHostsAddWithoutKeychainWritesTheCredentialsFile(t *testing.T) {
	t.Parallel()
	const password = "Hk4-no-keyring"
	x := testbed.StartXvnc(t, testbed.XvncOptions{Password: password})
	d := startDaemon(t, "")
	cred := filepath.Join(d.home, ".config", "dvv", "credentials")

	r := d.run("shell-a", password+"\n", nil, "hosts", "add", "lab", "--address", "127.0.0.1", "--port", strconv.Itoa(x.Port), "--protocol", "vnc", "--password-stdin")
	if r.code != 0 || !strings.Contains(r.stderr, "no keychain answered") || !strings.Contains(r.stderr, cred) {
		t.Fatalf("hosts add without a keychain: %v", r)
	}
	fi, err := os.Stat(cred)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the credentials file: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(cred); string(b) != "lab:"+password+"\n" {
		t.Fatalf("the credentials file holds %q", b)
	}
	r = d.dvv("open", "lab", "--perceive", "--wait-timeout", "20s")
	if r.code != 0 {
		t.Fatalf("open lab with the stored password: %v", r)
	}
	limb := strings.TrimSpace(r.stdout)
	loggedIn(t, d, x, limb)

	// A file others can read is refused; the host is not saved.
	os.Chmod(cred, 0o640)
	r = d.run("shell-a", "other-pw\n", nil, "hosts", "add", "lab2", "--address", "127.0.0.1", "--protocol", "vnc", "--password-stdin")
	wantExit(t, r, wire.ExitDenied, wire.KeychainMissing)
	if !strings.Contains(r.stderr, "chmod 600 "+cred) {
		t.Errorf("the refusal does not say how to fix the file: %v", r)
	}
	if strings.Contains(d.must("hosts").stdout, "lab2") {
		t.Error("a host whose password was not stored was saved")
	}
	if b, _ := os.ReadFile(cred); string(b) != "lab:"+password+"\n" {
		t.Fatalf("a refused file was changed: %q", b)
	}

	// While the file is refused, the saved host opens with a password
	// given for this open, which dvvd uses without reading the file.
	d.must("close", limb)
	wantExit(t, d.dvv("open", "lab", "--wait-timeout", "20s"), wire.ExitDenied, wire.KeychainMissing)
	r = d.run("shell-a", password+"\n", nil, "open", "lab", "--perceive", "--password-stdin", "--wait-timeout", "20s")
	if r.code != 0 {
		t.Fatalf("open lab --password-stdin while the file is refused: %v", r)
	}
	loggedIn(t, d, x, strings.TrimSpace(r.stdout))
	if strings.Contains(d.log(), password) || strings.Contains(d.log(), "other-pw") {
		t.Fatal("dvvd logged a password")
	}

	// hosts rm forgets the password too: the file's line goes, the rest stays.
	os.Chmod(cred, 0o600)
	if err := os.WriteFile(cred, []byte("# kept\nlab:"+password+"\nbuild:other\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d.must("hosts", "rm", "lab")
	if b, _ := os.ReadFile(cred); string(b) != "# kept\nbuild:other\n" {
		t.Fatalf("after hosts rm the credentials file holds %q", b)
	}
}

// loggedIn proves a limb is logged in to the Xvnc: a click it sends moves
// the X server's pointer there.
func loggedIn(t *testing.T, d *daemon, x *testbed.VNC, limb string) {
	t.Helper()
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "15000")
	d.must("control", "acquire", limb)
	d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "s.png"))
	d.must("click", limb, "123", "77")
	testbed.Eventually(t, 10*time.Second, "the pointer at 123,77", func() bool {
		px, py := x.MouseLocation(t)
		return px == 123 && py == 77
	})
}

// TestOpenPasswordStdin: an ad-hoc open of a real VncAuth Xvnc on a
// machine with no keychain. Without a password the answer is AUTH_FAILED
// whose hint names `open --password-stdin`; with the password on stdin the
// limb logs in (a click reaches the X server) and logs in again on
// reconnect; the password is in no answer, history, report or log.
func TestOpenPasswordStdin(t *testing.T) {
	t.Parallel()
	const password = "Op3n-stdin-pw"
	x := testbed.StartXvnc(t, testbed.XvncOptions{Password: password})
	d := startDaemon(t, "")
	var said strings.Builder
	run := func(stdin string, args ...string) result {
		r := d.run("shell-a", stdin, nil, args...)
		said.WriteString(r.stdout + r.stderr)
		return r
	}

	r := run("", "open", x.Addr, "--protocol", "vnc", "--wait-timeout", "20s")
	wantExit(t, r, wire.ExitDenied, wire.AuthFailed)
	if !strings.Contains(r.stderr, "--password-stdin") || !strings.Contains(r.stderr, "dvv open") {
		t.Errorf("AUTH_FAILED for an address does not say how to give a password: %v", r)
	}
	r = run("wrong-pw\n", "open", x.Addr, "--protocol", "vnc", "--password-stdin", "--wait-timeout", "20s")
	wantExit(t, r, wire.ExitDenied, wire.AuthFailed)

	r = run(password+"\n", "open", x.Addr, "--protocol", "vnc", "--perceive", "--password-stdin", "--wait-timeout", "20s")
	if r.code != 0 {
		t.Fatalf("open --password-stdin: %v", r)
	}
	limb := strings.TrimSpace(r.stdout)
	loggedIn(t, d, x, limb)

	// A reconnect logs in again with the password dvvd kept in memory.
	run("", "reconnect", limb, "--timeout-ms", "15000")
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "15000")
	if o := status(t, d, "shell-a", limb); o.Reconnects < 1 || o.State != "connected" {
		t.Fatalf("after reconnect: %+v", o)
	}
	d.must("control", "acquire", limb) // a reconnect ends the lease
	d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "s.png"))
	d.must("click", limb, "321", "177")
	testbed.Eventually(t, 10*time.Second, "the pointer at 321,177 after the reconnect", func() bool {
		px, py := x.MouseLocation(t)
		return px == 321 && py == 177
	})

	run("", "status", limb, "--json")
	run("", "limbs", "--json")
	if r := run("", "history", limb, "--json"); r.code != 0 || !strings.Contains(r.stdout, "click") {
		t.Fatalf("history: %v", r)
	}
	bundle := filepath.Join(t.TempDir(), "report.tar.gz")
	d.must("report", "--out", bundle)
	if strings.Contains(said.String(), password) || strings.Contains(reportFiles(t, bundle), password) || strings.Contains(d.log(), password) {
		t.Fatal("the password left dvvd (an answer, history, the report or the log)")
	}
	if b, _ := os.ReadFile(filepath.Join(d.home, ".config", "dvv", "hosts.json")); strings.Contains(string(b), password) {
		t.Error("the password was saved")
	}
	if _, err := os.Stat(filepath.Join(d.home, ".config", "dvv", "credentials")); err == nil {
		t.Error("an ad-hoc open wrote the credentials file")
	}
}

// TestOpenPasswordStdinSSH: an ad-hoc SSH open to a real sshd that takes
// only a password for this account: refused without it (AUTH_FAILED), and
// with it on stdin the command runs as that user on the server.
func TestOpenPasswordStdinSSH(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDConfig("PasswordAuthentication yes"))
	name, pw := testbed.PasswordUser(t)
	os.Remove(filepath.Join(s.Home, ".ssh", "id_ed25519")) // no key: the password is the only way in
	d := startDaemonIn(t, "", s.Home)
	port := strconv.Itoa(s.Port)

	r := d.dvv("open", name+"@127.0.0.1", "--protocol", "ssh", "--port", port, "--wait-timeout", "20s")
	wantExit(t, r, wire.ExitDenied, wire.AuthFailed)
	r = d.run("shell-a", pw+"\n", nil, "open", name+"@127.0.0.1", "--protocol", "ssh", "--port", port, "--password-stdin", "--wait-timeout", "20s")
	if r.code != 0 {
		t.Fatalf("open --password-stdin over SSH: %v", r)
	}
	limb := strings.TrimSpace(r.stdout)
	if who := strings.TrimSpace(d.must("run", limb, "--timeout", "10s", "id -un").stdout); who != name {
		t.Fatalf("logged in as %q, want %q", who, name)
	}
	if strings.Contains(d.log(), pw) || strings.Contains(d.must("history", limb, "--json").stdout, pw) {
		t.Fatal("the password left dvvd")
	}
}
