package system_test

import (
	"crypto/sha256"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// readOrEmpty is a file's content, "" when it does not exist.
func readOrEmpty(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// trustRules drives `dvv hosts trust` through every rule against one real
// server whose presented fingerprint is real (read from the server's own
// key or certificate file) and whose trust store is file: a wrong
// fingerprint, no fingerprint without a terminal, the right one, and
// --accept-new after the store is emptied. holds tells whether the store's
// content trusts the server's real key; extra are the protocol flags.
func trustRules(t *testing.T, d *daemon, addr, real, file string, holds func(string) bool, extra ...string) {
	t.Helper()
	trust := func(args ...string) result {
		return d.dvv(append(append([]string{"hosts", "trust", addr}, extra...), args...)...)
	}
	before := readOrEmpty(t, file)
	if holds(before) {
		t.Fatalf("the store trusts the server before the test: %s", before)
	}

	// A fingerprint the server does not present is refused; nothing is written.
	wrong := "SHA256:AAAAwrongAAAAwrongAAAAwrongAAAAwrongAAAAwro"
	if !strings.HasPrefix(real, "SHA256:") {
		wrong = strings.Repeat("AB:", 31) + "AB"
	}
	r := trust("--fingerprint", wrong)
	wantExit(t, r, wire.ExitTrust, wire.HostKeyChanged)
	if !strings.Contains(r.stderr, real) || !strings.Contains(r.stderr, "nothing was trusted or written") {
		t.Errorf("mismatch answer does not show the presented fingerprint: %v", r)
	}
	if got := readOrEmpty(t, file); got != before {
		t.Fatalf("a wrong fingerprint wrote %s:\n%s", file, got)
	}

	// No fingerprint and no terminal (stdin is a pipe): HOSTKEY_UNKNOWN with
	// the presented fingerprint and the exact command; nothing is written.
	r = trust()
	wantExit(t, r, wire.ExitTrust, wire.HostKeyUnknown)
	command := strings.Join(append(append([]string{"dvv", "hosts", "trust", addr}, extra...), "--fingerprint", real), " ")
	if !strings.Contains(r.stderr, command) {
		t.Errorf("HOSTKEY_UNKNOWN does not name %q: %v", command, r)
	}
	r = trust("--json")
	var answer struct {
		Code        string `json:"code"`
		Fingerprint string `json:"fingerprint"`
		Next        string `json:"next"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &answer); err != nil || answer.Code != string(wire.HostKeyUnknown) ||
		answer.Fingerprint != real || !strings.Contains(answer.Next, command) {
		t.Errorf("--json HOSTKEY_UNKNOWN: %+v (%v) from %v", answer, err, r)
	}
	if got := readOrEmpty(t, file); got != before {
		t.Fatalf("trust without a fingerprint or terminal wrote %s:\n%s", file, got)
	}

	// The exact command the answer named writes the key.
	if r = d.must(strings.Fields(command)[1:]...); !strings.Contains(r.stdout, "trusted") {
		t.Errorf("trust with the right fingerprint: %v", r)
	}
	if got := readOrEmpty(t, file); !holds(got) {
		t.Fatalf("trust with the right fingerprint did not write the key to %s:\n%s", file, got)
	}

	// --accept-new writes a key nobody checked when none is recorded.
	if err := os.WriteFile(file, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	if r = trust("--accept-new"); r.code != 0 || !strings.Contains(r.stdout, real) {
		t.Errorf("--accept-new: %v", r)
	}
	after := readOrEmpty(t, file)
	if !holds(after) {
		t.Errorf("--accept-new did not write the key to %s:\n%s", file, after)
	}
	// A wrong fingerprint for a key already trusted is still refused.
	wantExit(t, trust("--fingerprint", wrong), wire.ExitTrust, wire.HostKeyChanged)
	if got := readOrEmpty(t, file); got != after {
		t.Errorf("a refused trust changed %s:\n%s", file, got)
	}
}

// TestHostsTrustSSHChecksFingerprint: `dvv hosts trust --fingerprint`
// against real sshd writes ~/.ssh/known_hosts only with the fingerprint of
// the server's own host key file.
func TestHostsTrustSSHChecksFingerprint(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
	d := startDaemonIn(t, "", s.Home)
	pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(s.HostPub))
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(s.Home, ".ssh", "known_hosts")
	// Ground truth: a line holds the server's key (hashed or not, the key
	// itself is written as is).
	blob := strings.Fields(s.HostPub)[1]
	holds := func(content string) bool { return strings.Contains(content, blob) }
	trustRules(t, d, s.Addr, ssh.FingerprintSHA256(pub), known, holds)
}

// TestHostsTrustVNCChecksFingerprint: the same rules for a VeNCrypt X509
// TigerVNC server, whose certificate is pinned in dvv's known_certs.
func TestHostsTrustVNCChecksFingerprint(t *testing.T) {
	t.Parallel()
	v, der := testbed.StartXvncX509(t, "X509Vnc", "secret12")
	home := t.TempDir()
	d := startDaemonIn(t, "", home)
	pinFile := filepath.Join(home, ".config", "dvv", "known_certs")
	if err := os.MkdirAll(filepath.Dir(pinFile), 0o700); err != nil {
		t.Fatal(err)
	}
	real := rfb.Fingerprint(der)
	trustRules(t, d, v.Addr, real, pinFile, pinned(v.Addr, real), "--protocol", "vnc")
	// The pin is what a connection checks: the limb connects.
	limb := strings.TrimSpace(d.must("open", v.Addr, "--protocol", "vnc", "--wait=false").stdout)
	if r := d.dvv("wait", limb, "--until", "connected", "--timeout-ms", "15000"); r.code == wire.ExitTrust {
		t.Errorf("the pinned certificate is not trusted by a connection: %v", r)
	}
}

// TestHostsTrustRDPChecksFingerprint: the same rules for FreeRDP's shadow
// server; the real fingerprint is that of the certificate file it made.
func TestHostsTrustRDPChecksFingerprint(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 320, Height: 240})
	home := t.TempDir()
	d := startDaemonIn(t, "", home)
	pinFile := filepath.Join(home, ".config", "dvv", "known_certs")
	if err := os.MkdirAll(filepath.Dir(pinFile), 0o700); err != nil {
		t.Fatal(err)
	}
	// The shadow server writes its certificate on first contact: make one.
	wantExit(t, d.dvv("hosts", "trust", srv.Addr, "--protocol", "rdp"), wire.ExitTrust, wire.HostKeyUnknown)
	real := shadowCertFingerprint(t, filepath.Join(srv.Dir, "shadow-home"))
	trustRules(t, d, srv.Addr, real, pinFile, pinned(srv.Addr, real), "--protocol", "rdp")
}

// pinned tells whether known_certs content pins hostport to fingerprint.
func pinned(hostport, fingerprint string) func(string) bool {
	return func(content string) bool { return strings.Contains(content, hostport+" "+fingerprint+"\n") }
}

// shadowCertFingerprint is the SHA-256 of the certificate freerdp-shadow
// keeps under its HOME, in openssl's colon-separated form.
func shadowCertFingerprint(t *testing.T, home string) string {
	t.Helper()
	var fp string
	filepath.WalkDir(home, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".crt") {
			return nil
		}
		b, _ := os.ReadFile(path)
		if blk, _ := pem.Decode(b); blk != nil && blk.Type == "CERTIFICATE" {
			sum := sha256.Sum256(blk.Bytes)
			parts := make([]string, len(sum))
			for i, c := range sum {
				parts[i] = fmt.Sprintf("%02X", c)
			}
			fp = strings.Join(parts, ":")
		}
		return nil
	})
	if fp == "" {
		t.Fatalf("no certificate file under %s", home)
	}
	return fp
}

// TestHostsAddRefusesOptionLikeUser: a user or SSH user such as
// -oProxyCommand=… is refused with BAD_REQUEST and a hint, and the hosts
// file on disk stays as it was.
func TestHostsAddRefusesOptionLikeUser(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startDaemonIn(t, "", home)
	hostsFile := filepath.Join(home, ".config", "dvv", "hosts.json")
	before := readOrEmpty(t, hostsFile)
	for _, args := range [][]string{
		{"hosts", "add", "evil", "--address", "127.0.0.1", "--protocol", "ssh", "--user=-oProxyCommand=sh"},
		{"hosts", "add", "evil", "--address", "-oProxyCommand=sh@127.0.0.1", "--protocol", "ssh"},
		{"hosts", "add", "evil", "--address", "127.0.0.1", "--protocol", "vnc", "--ssh-user=-oProxyCommand=sh"},
		{"hosts", "add", "evil", "--address", "127.0.0.1", "--protocol", "ssh", "--user", "pat\tx"},
	} {
		r := d.dvv(args...)
		wantExit(t, r, wire.ExitUsage, wire.BadRequest)
		if !strings.Contains(r.stderr, "next:") {
			t.Errorf("no hint: %v", r)
		}
	}
	if got := readOrEmpty(t, hostsFile); got != before || strings.Contains(d.must("hosts").stdout, "evil") {
		t.Errorf("a refused host was saved:\n%s", got)
	}
}

// startTTYPrompt starts dvv with stdin and stderr on a new pseudo-terminal,
// as in a person's shell, and returns the run and the terminal's master
// side, where the test types its answers.
func (d *daemon) startTTYPrompt(t *testing.T, args ...string) (*ttyRun, *os.File) {
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
	r := &ttyRun{closed: make(chan struct{})}
	r.cmd = exec.Command(dvvBin, args...)
	r.cmd.Env = append(append([]string{}, d.env...), "DVV_SESSION=shell-a")
	r.cmd.Stdin, r.cmd.Stdout, r.cmd.Stderr = slave, &r.stdout, slave
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go func() {
		defer close(r.closed)
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
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait(); master.Close() })
	return r, master
}

// TestHostsTrustAsksOnATerminal: without --fingerprint, on a terminal
// `dvv hosts trust` shows the fingerprint of real sshd's host key and asks;
// "no" or a fingerprint the server does not present writes nothing, "y" is
// asked again, and "yes" writes that key to known_hosts.
func TestHostsTrustAsksOnATerminal(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
	d := startDaemonIn(t, "", s.Home)
	pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(s.HostPub))
	if err != nil {
		t.Fatal(err)
	}
	real := ssh.FingerprintSHA256(pub)
	known := filepath.Join(s.Home, ".ssh", "known_hosts")
	blob := strings.Fields(s.HostPub)[1]

	for _, c := range []struct {
		answers []string
		exit    int
		written bool
	}{
		{[]string{"no"}, wire.ExitTrust, false},
		{[]string{"SHA256:AAAAwrongAAAAwrongAAAAwrongAAAAwrongAAAAwro"}, wire.ExitTrust, false},
		{[]string{"y", "yes"}, 0, true},
	} {
		r, master := d.startTTYPrompt(t, "hosts", "trust", s.Addr)
		testbed.Eventually(t, 10*time.Second, "the question", func() bool { return strings.Contains(r.seen(), "(yes/no/[fingerprint])? ") })
		if !strings.Contains(r.seen(), real) {
			t.Fatalf("the question does not show the fingerprint %s:\n%s", real, r.seen())
		}
		for i, a := range c.answers {
			if i > 0 {
				testbed.Eventually(t, 10*time.Second, "the question again", func() bool { return strings.Contains(r.seen(), "Please type 'yes', 'no' or the fingerprint: ") })
			}
			fmt.Fprintf(master, "%s\n", a)
		}
		code, screen := r.wait(t)
		got := readOrEmpty(t, known)
		if code != c.exit || strings.Contains(got, blob) != c.written || (c.written && !strings.Contains(r.stdout.String(), real)) {
			t.Fatalf("answers %q: exit %d (want %d), stdout %q, known_hosts:\n%s\nterminal:\n%s", c.answers, code, c.exit, r.stdout.String(), got, screen)
		}
	}
}

// TestDoctorTrustFixIsACommandThatWorks: `dvv doctor` on a saved SSH host
// whose key is unknown names the exact trust command (address, port and
// fingerprint; a saved host's name is no address hosts trust can dial);
// running it writes sshd's key and the check passes.
func TestDoctorTrustFixIsACommandThatWorks(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
	d := startDaemonIn(t, "", s.Home)
	d.must("hosts", "add", "box", "--address", "127.0.0.1", "--port", fmt.Sprint(s.Port), "--protocol", "ssh", "--user", s.User)
	c := doctorChecks(t, d.dvv("doctor", "--json"))["host box"]
	_, command, _ := strings.Cut(c.Fix, "`dvv ")
	command, _, _ = strings.Cut(command, "`")
	if c.Status != wire.HealthFail || !strings.HasPrefix(command, "hosts trust ") || !strings.Contains(command, "--fingerprint SHA256:") {
		t.Fatalf("doctor's host box check names no trust command with a fingerprint: %+v", c)
	}
	if r := d.dvv(strings.Fields(command)...); r.code != 0 {
		t.Fatalf("the command doctor named failed: %v", r)
	}
	if got := readOrEmpty(t, filepath.Join(s.Home, ".ssh", "known_hosts")); !strings.Contains(got, strings.Fields(s.HostPub)[1]) {
		t.Fatalf("known_hosts does not hold sshd's key:\n%s", got)
	}
	if c := doctorChecks(t, d.dvv("doctor", "--json"))["host box"]; c.Status != wire.HealthOK {
		t.Errorf("after the fix, host box: %+v", c)
	}
}

// TestSSHTrustOverIPv6: the trust command an IPv6 SSH endpoint's
// HOSTKEY_UNKNOWN names puts the address in brackets ([::1]:port, not
// ::1:port, which is another address or none); running it trusts sshd's
// key and the limb connects.
func TestSSHTrustOverIPv6(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDUnknownHost(), testbed.SSHDConfig("ListenAddress ::1"))
	d := startDaemonIn(t, "", s.Home)
	addr := fmt.Sprintf("[::1]:%d", s.Port)
	limb := strings.TrimSpace(d.must("open", "ssh://"+addr, "--wait=false").stdout)
	r := d.dvv("wait", limb, "--until", "connected", "--timeout-ms", "10000")
	wantExit(t, r, wire.ExitTrust, wire.HostKeyUnknown)
	_, hint, _ := strings.Cut(r.stderr, "next: ")
	_, command, _ := strings.Cut(hint, "`dvv ")
	command, _, _ = strings.Cut(command, "`")
	if !strings.HasPrefix(command, "hosts trust "+addr+" --fingerprint SHA256:") {
		t.Fatalf("the hint's command does not name %s: %v", addr, r)
	}
	d.must(strings.Fields(command)...)
	if got := readOrEmpty(t, filepath.Join(s.Home, ".ssh", "known_hosts")); !strings.Contains(got, strings.Fields(s.HostPub)[1]) {
		t.Fatalf("known_hosts does not hold sshd's key:\n%s", got)
	}
	d.must("reconnect", limb, "--timeout-ms", "10000")
	if r := d.dvv("run", limb, "--timeout-ms", "10000", "echo v6"); r.code != 0 || r.stdout != "v6\n" {
		t.Errorf("run after trust: %v", r)
	}
}

// TestHostsTrustASavedHostByName: `dvv hosts trust NAME` for a saved host
// trusts the endpoint saved under the name, with its own protocol, where it
// used to dial NAME as a host name over SSH. A name nothing is saved under
// is still a host name.
func TestHostsTrustASavedHostByName(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
	v, der := testbed.StartXvncX509(t, "X509Vnc", "secret12")
	d := startDaemonIn(t, "", s.Home)
	d.must("hosts", "add", "shell-box", "--address", s.Addr, "--protocol", "ssh")
	d.must("hosts", "add", "desk-box", "--address", v.Addr, "--protocol", "vnc")

	known := filepath.Join(s.Home, ".ssh", "known_hosts")
	if r := d.must("hosts", "trust", "shell-box", "--accept-new"); !strings.Contains(r.stdout, s.Addr) {
		t.Errorf("trusting shell-box does not name its saved address %s: %v", s.Addr, r)
	}
	if got := readOrEmpty(t, known); !strings.Contains(got, strings.Fields(s.HostPub)[1]) {
		t.Errorf("trusting the saved ssh host wrote no key for it to %s:\n%s", known, got)
	}

	// The saved VNC host's certificate, not an SSH key of a host named desk-box.
	pins := filepath.Join(s.Home, ".config", "dvv", "known_certs")
	real := rfb.Fingerprint(der)
	r := d.dvv("hosts", "trust", "desk-box")
	wantExit(t, r, wire.ExitTrust, wire.HostKeyUnknown)
	if !strings.Contains(r.stderr, real) {
		t.Errorf("HOSTKEY_UNKNOWN for desk-box does not show its certificate's fingerprint %s: %v", real, r)
	}
	d.must("hosts", "trust", "desk-box", "--fingerprint", real)
	if got := readOrEmpty(t, pins); !pinned(v.Addr, real)(got) {
		t.Errorf("trusting the saved vnc host did not pin %s %s in %s:\n%s", v.Addr, real, pins, got)
	}

}
