package hosts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSSHConfigHosts(t *testing.T) {
	dir := t.TempDir()
	inc := filepath.Join(dir, "config.d")
	os.MkdirAll(inc, 0o700)
	os.WriteFile(filepath.Join(inc, "work.conf"), []byte("Host included\n  HostName inc.example\n"), 0o600)
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
Host *.corp ?x
    User corp
Match host foo
    User nobody
Host bare
Host *
    User fallback
    Port 2200
`), 0o600)
	got := map[string]Host{}
	var order []string
	for _, h := range SSHConfigHosts(cfg) {
		got[h.Name] = h
		order = append(order, h.Name)
	}
	if strings.Join(order, ",") != "included,lab,lab-alias,web-1,quoted,bare" {
		t.Fatalf("aliases %v", order)
	}
	check := func(name, addr string, port int, user string) {
		t.Helper()
		h := got[name]
		if h.Address != addr || h.Port != port || h.User != user || h.Protocol != "ssh" || h.ID != "ssh-"+name || h.Source != SourceSSHConfig {
			t.Errorf("%s = %+v, want %s:%d user %q", name, h, addr, port, user)
		}
	}
	check("lab", "10.0.0.5", 2222, "pat")
	check("lab-alias", "10.0.0.5", 2222, "pat")
	check("web-1", "web1.example", 2200, "webber")
	check("quoted", "quoted.example", 2200, "fallback")
	check("bare", "bare", 2200, "fallback")
	check("included", "inc.example", 2200, "fallback")

	if hs := SSHConfigHosts(filepath.Join(dir, "missing")); len(hs) != 0 {
		t.Fatalf("missing file gave %v", hs)
	}
}

func TestSSHConfigIncludeLoopIsBounded(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	os.WriteFile(cfg, []byte("Include config\nHost loop\n"), 0o600)
	hs := SSHConfigHosts(cfg)
	if len(hs) != 1 || hs[0].Name != "loop" {
		t.Fatalf("%v", hs)
	}
}

func TestWildMatch(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abbbc", true}, {"a*c", "abcd", false},
		{"?", "a", true}, {"?", "", false}, {"*.corp", "x.CORP", true}, {"a**b", "ab", true},
		{"*a*a*a*a*b", strings.Repeat("a", 200), false}, {"web-?", "web-12", false},
	} {
		if got := wildMatch(c.p, c.s); got != c.want {
			t.Errorf("wildMatch(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

func TestSplitSSHLine(t *testing.T) {
	for _, c := range []struct {
		line, key string
		args      []string
	}{
		{"Host a b", "host", []string{"a", "b"}},
		{"  HostName=x", "hostname", []string{"x"}},
		{"Port = 22", "port", []string{"22"}},
		{`Host "a b" c`, "host", []string{"a b", "c"}},
		{`Host "open`, "host", []string{"open"}},
		{"# x", "", nil},
		{"User u # c", "user", []string{"u"}},
		{"Host", "host", nil},
	} {
		k, a := splitSSHLine(c.line)
		if k != c.key || strings.Join(a, "|") != strings.Join(c.args, "|") {
			t.Errorf("%q → %q %q", c.line, k, a)
		}
	}
}

func FuzzParseSSHConfig(f *testing.F) {
	f.Add("Host a\n HostName b\n Port 1\n")
	f.Add("Host *\nUser x\nHost \"q\nMatch all\nInclude /etc/passwd\n")
	f.Add("Host=a=b\tc\r\n  Port 99999999999999999999\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, h := range ParseSSHConfig(text) {
			if h.Port < 1 || h.Port > 65535 || h.Address == "" || strings.ContainsAny(h.Name, "*?!") {
				t.Fatalf("bad host %+v", h)
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
		if wildMatch(p, s) && !strings.ContainsAny(p, "*?") && !strings.EqualFold(p, s) {
			t.Fatalf("%q matched %q without wildcards", p, s)
		}
		if !wildMatch(strings.ReplaceAll(strings.ReplaceAll(s, "*", ""), "?", ""), strings.ReplaceAll(strings.ReplaceAll(s, "*", ""), "?", "")) {
			t.Fatalf("%q does not match itself", s)
		}
	})
}
