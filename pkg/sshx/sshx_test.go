package sshx

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

func testOptions(s *testbed.SSHD) Options {
	return Options{Address: s.Host, Port: s.Port, Home: s.Home, AgentSocket: "none",
		ConfigFiles: []string{filepath.Join(s.Home, ".ssh", "config")}}
}

func dialT(t *testing.T, o Options) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, o)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func runT(t *testing.T, c *Client, cmd string, o RunOptions) *RunResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := c.Run(ctx, cmd, o)
	if err != nil {
		t.Fatalf("Run(%q): %v", cmd, err)
	}
	return r
}

func TestKeyFileAuthAndRun(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	c := dialT(t, testOptions(s))
	r := runT(t, c, "echo out; echo err >&2; exit 3", RunOptions{})
	if r.ExitCode == nil || *r.ExitCode != 3 || string(r.Stdout) != "out\n" || string(r.Stderr) != "err\n" {
		t.Fatalf("got code %v stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	if c.Endpoint.User != s.User {
		t.Errorf("default user %q, want the local user %q", c.Endpoint.User, s.User)
	}
}

func TestAgentAuth(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	os.Remove(filepath.Join(s.Home, ".ssh", "id_ed25519"))
	sock := testbed.StartSSHAgent(t, s.ClientKey)
	o := testOptions(s)
	o.AgentSocket = sock
	c := dialT(t, o)
	if r := runT(t, c, "true", RunOptions{}); r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("true gave %+v", r)
	}
}

func TestConfigAlias(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	// The key lives outside ~/.ssh, named through ~ so the tilde is tested.
	os.MkdirAll(filepath.Join(s.Home, "keys"), 0o700)
	key := filepath.Join(s.Home, "keys", "special_key")
	b, _ := os.ReadFile(s.ClientKey)
	os.WriteFile(key, b, 0o600)
	os.Remove(filepath.Join(s.Home, ".ssh", "id_ed25519"))
	cfg := filepath.Join(s.Home, ".ssh", "config")
	testbed.AppendLines(t, cfg,
		"Host other",
		"  User nobody-else",
		"Host lab*",
		"  HostName "+s.Host,
		"  Port "+strconv.Itoa(s.Port),
		"  User "+s.User,
		"  IdentityFile ~/keys/special_key",
		"Host *",
		"  User wrong-user-because-first-wins")
	o := testOptions(s)
	o.Address, o.Port = "lab1", 0
	c := dialT(t, o)
	if c.Endpoint.HostName != s.Host || c.Endpoint.Port != s.Port || c.Endpoint.User != s.User {
		t.Fatalf("resolved %+v", c.Endpoint)
	}
}

func TestUnknownHostKey(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
	_, err := Dial(context.Background(), testOptions(s))
	var he *HostKeyError
	if !errors.As(err, &he) || he.Changed || !strings.HasPrefix(he.Fingerprint, "SHA256:") {
		t.Fatalf("want unknown host key error, got %v", err)
	}
	// Trusting records it; then the dial succeeds.
	o := testOptions(s)
	tr, err := Trust(context.Background(), o)
	if err != nil || tr.Already || tr.Fingerprint != he.Fingerprint {
		t.Fatalf("Trust: %+v %v", tr, err)
	}
	dialT(t, o)
	tr, err = Trust(context.Background(), o)
	if err != nil || !tr.Already {
		t.Fatalf("second Trust: %+v %v", tr, err)
	}
}

func TestChangedHostKey(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	other := filepath.Join(t.TempDir(), "other")
	testbed.Keygen(t, other, "ed25519")
	pub, _ := os.ReadFile(other + ".pub")
	kh := filepath.Join(s.Home, ".ssh", "known_hosts")
	os.WriteFile(kh, []byte(s.KnownHostsLine(strings.Join(strings.Fields(string(pub))[:2], " "))), 0o600)
	_, err := Dial(context.Background(), testOptions(s))
	var he *HostKeyError
	if !errors.As(err, &he) || !he.Changed || he.KnownFile != kh || he.KnownLine != 1 {
		t.Fatalf("want changed host key error, got %v", err)
	}
	if _, err := Trust(context.Background(), testOptions(s)); !errors.As(err, &he) || !he.Changed {
		t.Fatalf("Trust must refuse to replace a changed key, got %v", err)
	}
}

func TestAuthFailed(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	os.Remove(filepath.Join(s.Home, ".ssh", "id_ed25519"))
	wrong := filepath.Join(s.Home, ".ssh", "id_ecdsa")
	testbed.Keygen(t, wrong, "ecdsa")
	o := testOptions(s)
	o.Password = "not-the-password"
	_, err := Dial(context.Background(), o)
	var ae *AuthError
	if !errors.As(err, &ae) || !strings.Contains(ae.Error(), "id_ecdsa") || !strings.Contains(ae.Error(), "password") {
		t.Fatalf("want AuthError naming what was tried, got %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	port := testbed.FreePort(t)
	_, err := Dial(context.Background(), Options{Address: "127.0.0.1", Port: port, Home: t.TempDir(), AgentSocket: "none"})
	var ce *ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("want ConnectError, got %v", err)
	}
}

func TestPasswordAuth(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDConfig("PasswordAuthentication yes"))
	name, pw := testbed.PasswordUser(t)
	o := testOptions(s)
	o.User, o.Password = name, pw
	os.Remove(filepath.Join(s.Home, ".ssh", "id_ed25519"))
	c := dialT(t, o)
	r := runT(t, c, "id -un", RunOptions{})
	if string(r.Stdout) != name+"\n" {
		t.Fatalf("logged in as %q", r.Stdout)
	}
	o.Password = "wrong"
	if _, err := Dial(context.Background(), o); !errors.As(err, new(*AuthError)) {
		t.Fatalf("wrong password: %v", err)
	}
}

func TestTrustHashed(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
	testbed.AppendLines(t, filepath.Join(s.Home, ".ssh", "config"), "Host *", "  HashKnownHosts yes")
	o := testOptions(s)
	tr, err := Trust(context.Background(), o)
	if err != nil || !tr.Hashed {
		t.Fatalf("Trust: %+v %v", tr, err)
	}
	b, _ := os.ReadFile(filepath.Join(s.Home, ".ssh", "known_hosts"))
	if !strings.HasPrefix(string(b), "|1|") || strings.Contains(string(b), s.Host) {
		t.Fatalf("known_hosts holds %q, want a hashed name", b)
	}
	dialT(t, o)
}

func TestEncryptedKeySkipped(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	key := filepath.Join(s.Home, ".ssh", "id_ed25519")
	os.Remove(key)
	os.Remove(key + ".pub")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "a passphrase", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	_, err := Dial(context.Background(), testOptions(s))
	var ae *AuthError
	if !errors.As(err, &ae) || !strings.Contains(ae.Error(), "encrypted") || !strings.Contains(ae.Error(), "ssh-add") {
		t.Fatalf("want AuthError noting the encrypted key, got %v", err)
	}
}
