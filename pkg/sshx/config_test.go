package sshx

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sampleConfig = `
# global defaults before any Host line apply everywhere
ConnectTimeout 7

Host web-* !web-test
    HostName %h.example.net
    User deploy
    Port=2200
    IdentityFile ~/.ssh/deploy_%r

Host "quoted alias" q?
  HostName 10.0.0.9
  IdentityFile "/keys/with space"

Match exec "true"
  User never-applied

Host *
  User fallback
  Port 2222
  IdentityFile ~/.ssh/all
  HashKnownHosts yes
`

func TestConfigLookup(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader(sampleConfig), "")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		alias string
		want  HostSettings
	}{
		{"web-1", HostSettings{HostName: "%h.example.net", User: "deploy", Port: 2200,
			IdentityFiles: []string{"~/.ssh/deploy_%r", "~/.ssh/all"}, HashKnownHosts: true, ConnectTimeoutSecs: 7}},
		{"web-test", HostSettings{User: "fallback", Port: 2222, IdentityFiles: []string{"~/.ssh/all"}, HashKnownHosts: true, ConnectTimeoutSecs: 7}},
		{"quoted alias", HostSettings{HostName: "10.0.0.9", User: "fallback", Port: 2222,
			IdentityFiles: []string{"/keys/with space", "~/.ssh/all"}, HashKnownHosts: true, ConnectTimeoutSecs: 7}},
		{"q1", HostSettings{HostName: "10.0.0.9", User: "fallback", Port: 2222,
			IdentityFiles: []string{"/keys/with space", "~/.ssh/all"}, HashKnownHosts: true, ConnectTimeoutSecs: 7}},
		{"Q12", HostSettings{User: "fallback", Port: 2222, IdentityFiles: []string{"~/.ssh/all"}, HashKnownHosts: true, ConnectTimeoutSecs: 7}},
	}
	for _, c := range cases {
		if got := cfg.Lookup(c.alias); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.alias, got, c.want)
		}
	}
}

func TestMatchHostPatterns(t *testing.T) {
	cases := []struct {
		patterns []string
		host     string
		want     bool
	}{
		{[]string{"*"}, "anything", true},
		{[]string{"a?c"}, "abc", true},
		{[]string{"a?c"}, "abbc", false},
		{[]string{"*.lan", "!secret.lan"}, "box.lan", true},
		{[]string{"*.lan", "!secret.lan"}, "secret.lan", false},
		{[]string{"!secret.lan"}, "other", false}, // a negation alone matches nothing
		{[]string{"a,b"}, "b", true},
		{[]string{"A*"}, "abc", true},
		{[]string{"*a*a*a*b"}, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", false},
	}
	for _, c := range cases {
		if got := MatchHostPatterns(c.patterns, c.host); got != c.want {
			t.Errorf("%v ~ %q = %v, want %v", c.patterns, c.host, got, c.want)
		}
	}
}

func TestExpandTokens(t *testing.T) {
	tok := Tokens{Host: "h.example", Alias: "h", Port: 2200, RemoteUser: "ru", LocalUser: "lu", LocalHome: "/home/lu"}
	cases := map[string]string{
		"~/.ssh/id_%r@%h:%p": "/home/lu/.ssh/id_ru@h.example:2200",
		"%d/k_%u_%n%%":       "/home/lu/k_lu_h%",
		"~":                  "/home/lu",
		"%z and 100%":        "%z and 100%",
		"/abs/~/path":        "/abs/~/path",
	}
	for in, want := range cases {
		if got := ExpandPath(in, tok); got != want {
			t.Errorf("ExpandPath(%q) = %q, want %q", in, got, want)
		}
	}
}

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

func FuzzParseConfig(f *testing.F) {
	f.Add(sampleConfig, "web-1")
	f.Add("Host=a\nHostName=\"b\" # c\nPort 0\nPort 99999\n", "a")
	f.Add("Host \"unterminated\n", "x")
	f.Add("Host *?*?*?*?*?*?*?*?*?*?*?*?*?*?*?x\nUser u\n", strings.Repeat("?", 200))
	f.Fuzz(func(t *testing.T, text, alias string) {
		cfg, err := ParseConfig(strings.NewReader(text), "")
		if err != nil {
			return
		}
		hs := cfg.Lookup(alias)
		if hs.Port < 0 || hs.Port > 65535 {
			t.Fatalf("port %d accepted", hs.Port)
		}
		ExpandPath(hs.HostName, Tokens{Host: alias})
	})
}
