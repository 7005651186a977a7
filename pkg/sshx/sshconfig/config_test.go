package sshconfig

import (
	"fmt"
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
	cfg, err := Parse(strings.NewReader(sampleConfig), "")
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

func TestMatchHost(t *testing.T) {
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
		if got := MatchHost(c.patterns, c.host); got != c.want {
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

func TestSplitConfigLine(t *testing.T) {
	for _, c := range []struct {
		line, key string
		args      []string
		bad       bool
	}{
		{"Host a b", "host", []string{"a", "b"}, false},
		{"  HostName=x", "hostname", []string{"x"}, false},
		{"Port = 22", "port", []string{"22"}, false},
		{"Port\t22\r", "port", []string{"22"}, false},
		{`Host "a b" c`, "host", []string{"a b", "c"}, false},
		{`Host "open`, "", nil, true},
		{"# x", "", nil, false},
		{"User u # c", "user", []string{"u"}, false},
		{"Host", "host", nil, false},
		{"", "", nil, false},
	} {
		k, a, err := splitConfigLine(c.line)
		if k != c.key || strings.Join(a, "|") != strings.Join(c.args, "|") || (err != nil) != c.bad {
			t.Errorf("%q → %q %q %v", c.line, k, a, err)
		}
	}
}

func TestWildMatch(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abbbc", true}, {"a*c", "abcd", false},
		{"?", "a", true}, {"?", "", false}, {"*.corp", "x.corp", true}, {"a**b", "ab", true},
		{"*a*a*a*a*b", strings.Repeat("a", 200), false}, {"web-?", "web-12", false},
	} {
		if got := wildMatch(c.p, c.s); got != c.want {
			t.Errorf("wildMatch(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

// TestAliases: the names dvv hosts lists are the Host names of single
// machines, in order, once each, from included files too, and each
// resolves as a connection would (first value wins, Match blocks other
// than "Match all" never apply, %h in HostName is the alias).
func TestAliases(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "config.d"), 0o700)
	os.WriteFile(filepath.Join(dir, "config.d", "work.conf"), []byte("Host included\n  HostName inc.example\n"), 0o600)
	cfg := filepath.Join(dir, "config")
	os.WriteFile(cfg, []byte(`# comment
Include config.d/*.conf
Host lab lab-alias
    HostName 10.0.0.5
    Port 2222
    User pat
Host web-*  !web-9
    User webber
Host web-1
    HostName=web1.example   # trailing comment
Host "quoted"
    HostName %h.example
Host *.corp ?x a,b %n
    User corp
Host self !self
Match host foo
    User nobody
Host LAB bare
Match all
    User everyone
Host *
    User fallback
    Port 2200
`), 0o600)
	c, err := Load(cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Aliases(), ","); got != "included,lab,lab-alias,web-1,quoted,bare" {
		t.Fatalf("aliases %s", got)
	}
	for alias, want := range map[string]HostSettings{
		"lab":      {HostName: "10.0.0.5", Port: 2222, User: "pat"},
		"web-1":    {HostName: "web1.example", Port: 2200, User: "webber"},
		"quoted":   {HostName: "%h.example", Port: 2200, User: "everyone"},
		"bare":     {Port: 2200, User: "everyone"},
		"included": {HostName: "inc.example", Port: 2200, User: "everyone"},
	} {
		if got := c.Lookup(alias); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", alias, got, want)
		}
	}
	if got := ExpandTokens(c.Lookup("quoted").HostName, Tokens{Host: "quoted"}); got != "quoted.example" {
		t.Errorf("quoted's HostName %q", got)
	}
	if empty, err := Load(filepath.Join(dir, "missing"), dir); err != nil || len(empty.Aliases()) != 0 {
		t.Fatalf("a missing file: %v %v", empty, err)
	}
}

// TestSetFirstFileWins: the user's file is read before the system's, and
// the first value found wins across them.
func TestSetFirstFileWins(t *testing.T) {
	dir := t.TempDir()
	user, system := filepath.Join(dir, "user"), filepath.Join(dir, "system")
	os.WriteFile(user, []byte("Host lab\n  Port 2022\n  IdentityFile ~/a\n"), 0o600)
	os.WriteFile(system, []byte("Host *\n  Port 22\n  User sys\n  IdentityFile ~/b\n  HashKnownHosts yes\n"), 0o600)
	set, err := LoadAll([]string{user, system}, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := HostSettings{Port: 2022, User: "sys", IdentityFiles: []string{"~/a", "~/b"}, HashKnownHosts: true}
	if got := set.Lookup("lab"); !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
}

// TestLimits: each bound is an error naming what went past it, whether the
// configuration is one file or spread over Includes.
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := strings.Repeat("# "+strings.Repeat("x", 1000)+"\n", 1100) // about 1.1 MB
	for _, c := range []struct {
		name string
		main string
		want string
	}{
		{"loop", write("loop", "Include loop\nHost a\n"), "nested more than 16 deep"},
		{"files", write("many/main", "Include many/f*\n"), "main line 1: Include reads more than 256 files"},
		{"bytes across files", write("big/main", "Include big/part*\n"), "more than 4 MiB"},
		{"long line", write("long", "Host a\nHost "+strings.Repeat("a", 70<<10)+"\n"), "long line 2: longer than 64 KiB"},
		{"quote in an included file", write("q/main", "Host a\nInclude q/bad\n"), "q/bad line 2: unterminated quote"},
	} {
		if c.name == "files" {
			for i := range 300 {
				write(fmt.Sprintf("many/f%03d", i), "Host x\n")
			}
		}
		if c.name == "bytes across files" {
			for i := range 5 {
				write(fmt.Sprintf("big/part%d", i), big)
			}
		}
		if c.name == "quote in an included file" {
			write("q/bad", "Host b\n  User \"x\n")
		}
		_, err := Load(c.main, dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Within the bounds: a file included twice over is read twice, fine.
	write("ok/main", "Include ok/a ok/a\nHost z\n")
	write("ok/a", "Host y\n")
	c, err := Load(filepath.Join(dir, "ok/main"), dir)
	if err != nil || strings.Join(c.Aliases(), ",") != "y,z" {
		t.Fatalf("%v %v", c.Aliases(), err)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add(sampleConfig, "web-1")
	f.Add("Host=a\nHostName=\"b\" # c\nPort 0\nPort 99999\n", "a")
	f.Add("Host \"unterminated\n", "x")
	f.Add("Host *?*?*?*?*?*?*?*?*?*?*?*?*?*?*?x\nUser u\n", strings.Repeat("?", 200))
	f.Fuzz(func(t *testing.T, text, alias string) {
		cfg, err := Parse(strings.NewReader(text), "")
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

// FuzzAliases: whatever the text, every alias listed is one machine's
// name that the configuration itself applies to, listed once.
func FuzzAliases(f *testing.F) {
	f.Add("Host a b\n HostName c\nHost *\n Port 1\n")
	f.Add("Host *\nUser x\nHost \"q r\" !q\nMatch all\nHost a,b x!y\n")
	f.Add("Host=a=b\tc\r\n  Port 99999999999999999999\nHost A a\n")
	f.Fuzz(func(t *testing.T, text string) {
		cfg, err := Parse(strings.NewReader(text), "")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, a := range cfg.Aliases() {
			if a == "" || strings.ContainsAny(a, "*?!%,\n") || seen[strings.ToLower(a)] {
				t.Fatalf("alias %q listed (seen %v)", a, seen)
			}
			seen[strings.ToLower(a)] = true
			applies := false
			for _, b := range cfg.blocks[1:] {
				applies = applies || !b.never && MatchHost(b.patterns, a)
			}
			if !applies {
				t.Fatalf("alias %q matches no Host line", a)
			}
			if p := cfg.Lookup(a).Port; p < 0 || p > 65535 {
				t.Fatalf("port %d", p)
			}
		}
	})
}

func FuzzWildMatch(f *testing.F) {
	f.Add("a*b?c", "axxbyc")
	f.Add("*", "")
	f.Fuzz(func(t *testing.T, p, s string) {
		if len(p) > 200 || len(s) > 200 {
			return
		}
		if wildMatch(p, s) && !strings.ContainsAny(p, "*?") && p != s {
			t.Fatalf("%q matched %q without wildcards", p, s)
		}
		plain := strings.NewReplacer("*", "", "?", "").Replace(s)
		if !wildMatch(plain, plain) {
			t.Fatalf("%q does not match itself", plain)
		}
	})
}
