package sshx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveUsesConfigAndInclude(t *testing.T) {
	home := t.TempDir()
	sshDir := filepath.Join(home, ".ssh")
	os.MkdirAll(filepath.Join(sshDir, "conf.d"), 0o700)
	os.WriteFile(filepath.Join(sshDir, "config"), []byte("Include conf.d/*\nHost *\n  User late\n"), 0o600)
	os.WriteFile(filepath.Join(sshDir, "conf.d", "lab"), []byte("Host lab\n  HostName 127.0.0.9\n  Port 2022\n  User alice\n  IdentityFile %d/keys/%r\n"), 0o600)
	ep, err := Resolve(Options{Address: "lab", Home: home, ConfigFiles: []string{filepath.Join(sshDir, "config")}, AgentSocket: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if ep.HostName != "127.0.0.9" || ep.Port != 2022 || ep.User != "alice" || len(ep.IdentityFiles) != 1 || ep.IdentityFiles[0] != home+"/keys/alice" {
		t.Fatalf("got %+v", ep)
	}
	// Explicit options win over the file.
	ep, _ = Resolve(Options{Address: "lab", Port: 22, User: "bob", Home: home, ConfigFiles: []string{filepath.Join(sshDir, "config")}})
	if ep.Port != 22 || ep.User != "bob" {
		t.Fatalf("got %+v", ep)
	}
	// No IdentityFile configured: OpenSSH's defaults.
	ep, _ = Resolve(Options{Address: "elsewhere", Home: home, ConfigFiles: []string{filepath.Join(sshDir, "config")}})
	if ep.User != "late" || len(ep.IdentityFiles) != len(DefaultIdentityFiles) || ep.KnownHosts[0] != filepath.Join(sshDir, "known_hosts") {
		t.Fatalf("got %+v", ep)
	}
}

// TestResolveRefusesABrokenConfig: a configuration past a limit (an
// Include loop) or with a syntax error fails the connection with the file
// and line, as ssh itself refuses it, instead of a partial reading.
func TestResolveRefusesABrokenConfig(t *testing.T) {
	home := t.TempDir()
	sshDir := filepath.Join(home, ".ssh")
	os.MkdirAll(sshDir, 0o700)
	cfg := filepath.Join(sshDir, "config")
	for text, want := range map[string]string{
		"Include config\nHost lab\n": "nested more than 16 deep",
		"Host lab\n  User \"open\n":  "line 2: unterminated quote",
	} {
		os.WriteFile(cfg, []byte(text), 0o600)
		_, err := Resolve(Options{Address: "lab", Home: home, ConfigFiles: []string{cfg}})
		if err == nil || !strings.Contains(err.Error(), cfg) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want the file and %q", text, err, want)
		}
	}
}
