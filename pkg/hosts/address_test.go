package hosts

import (
	"strings"
	"testing"
)

func TestPasswordInAddress(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", false},
		{"lab.example", false},
		{"pat@lab.example", false},
		{"[::1]", false},
		{"ws://127.0.0.1:6080/websockify", false},
		{"ws://h/path@x:y", false}, // '@' after the authority
		{":pw@127.0.0.1", true},
		{"pat:pw@lab", true},
		{"vnc://:pw@127.0.0.1:5972", true},
		{"wss://u:p%40ss@h:443/w", true},
		{"rdp://DOM\\u:pw@h", true},
		{"a:b:c@[::1]", true},
	} {
		if got := PasswordInAddress(tc.addr); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.addr, got, tc.want)
		}
	}
	err := CheckAddress("vnc://:Hunter2-secret@127.0.0.1:5972")
	if err == nil || strings.Contains(err.Error(), "Hunter2") || !strings.Contains(err.Error(), "BAD_REQUEST") {
		t.Fatalf("CheckAddress: %v", err)
	}
}

func FuzzPasswordInAddress(f *testing.F) {
	for _, s := range []string{"h", ":p@h", "ws://u:p@h/x", "a@b@c:d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if PasswordInAddress(s) && CheckAddress(s) == nil {
			t.Fatal("a password address passed the check")
		}
		if e := CheckAddress(s); e != nil && len(s) > 8 && strings.Contains(e.Error(), s) {
			t.Fatalf("the refusal echoes the address %q", s)
		}
	})
}

func TestParseAddress(t *testing.T) {
	const pw = "Hunter2xyz"
	for _, tc := range []struct {
		proto, addr string
		want        Endpoint
	}{
		{"ssh", "pat@build.lan", Endpoint{User: "pat", Host: "build.lan"}},
		{"ssh", "ssh://pat@build.lan:2222/", Endpoint{User: "pat", Host: "build.lan", Port: 2222}},
		{"", "ssh://pat@127.0.0.1", Endpoint{User: "pat", Host: "127.0.0.1"}},
		{"vnc", "127.0.0.1:5975", Endpoint{Host: "127.0.0.1", Port: 5975}},
		{"vnc", "[::1]:5900", Endpoint{Host: "::1", Port: 5900}},
		{"vnc", "2001:db8::1", Endpoint{Host: "2001:db8::1"}},
		{"rdp", "rdp://win_box.local", Endpoint{Host: "win_box.local"}},
		{"vnc", "ws://127.0.0.1:6080/websockify", Endpoint{Host: "127.0.0.1", Port: 6080, URL: "ws://127.0.0.1:6080/websockify"}},
	} {
		got, err := ParseAddress(tc.proto, tc.addr)
		if err != nil || got != tc.want {
			t.Errorf("ParseAddress(%q, %q) = %+v, %v; want %+v", tc.proto, tc.addr, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ proto, addr string }{
		{"vnc", "vnc://pat%3A" + pw + "@127.0.0.1"}, // percent-encoded user-info
		{"vnc", "127.0.0.1:" + pw},                  // a password where the port goes
		{"vnc", "vnc://127.0.0.1:" + pw},
		{"vnc", "ws://127.0.0.1/websockify?password=" + pw}, // in a query
		{"vnc", "ws://127.0.0.1/websockify#" + pw},
		{"vnc", "pat@127.0.0.1"}, // a user outside SSH
		{"ssh", "pat:" + pw + "@127.0.0.1"},
		{"ssh", "a@b@127.0.0.1"},
		{"ssh", "ssh://127.0.0.1/" + pw},
		{"ssh", "127.0.0.1:0"}, {"ssh", "127.0.0.1:70000"}, {"ssh", "127.0.0.1:"}, {"ssh", ""},
		{"ssh", "bad host"}, {"ssh", "-oProxyCommand=x"}, {"rdp", "vnc://h"},
		{"vnc", "ws://u@127.0.0.1/x"}, {"ssh", "ws://127.0.0.1"}, {"ssh", "http://h"},
	} {
		_, err := ParseAddress(tc.proto, tc.addr)
		if err == nil || !strings.Contains(err.Error(), "BAD_REQUEST") {
			t.Errorf("ParseAddress(%q, %q) = %v, want BAD_REQUEST", tc.proto, tc.addr, err)
			continue
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("ParseAddress(%q) echoes the password: %v", tc.addr, err)
		}
	}
	for _, u := range []string{"pat:" + pw, "pat%3A" + pw, "pat " + pw} {
		if err := CheckUser(u); err == nil || strings.Contains(err.Error(), pw) {
			t.Errorf("CheckUser(%q) = %v", u, err)
		}
	}
	if err := CheckUser(`DOM\pat`); err != nil {
		t.Errorf("CheckUser(DOM\\pat) = %v", err)
	}
}

// TestAddSplitsPort: a port written in a saved host's address moves to
// its port (never "[10.0.0.5:5975]:5900"); one that contradicts --port is
// refused.
func TestAddSplitsPort(t *testing.T) {
	s, err := Open(t.TempDir() + "/hosts.json")
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Add(Host{Name: "lab", Protocol: "vnc", Address: "127.0.0.1:5975"})
	if err != nil || h.Address != "127.0.0.1" || h.Port != 5975 {
		t.Fatalf("Add = %+v, %v", h, err)
	}
	h, err = s.Add(Host{Name: "build", Protocol: "ssh", Address: "ci@build.lan"})
	if err != nil || h.Address != "build.lan" || h.User != "ci" || h.Port != 22 {
		t.Fatalf("Add = %+v, %v", h, err)
	}
	if _, err := s.Add(Host{Name: "lab2", Protocol: "vnc", Address: "127.0.0.1:5975", Port: 5901}); err == nil {
		t.Fatal("a port in the address that contradicts port was saved")
	}
	if _, err := s.Add(Host{Name: "lab3", Protocol: "vnc", Address: "127.0.0.1", User: "pat:secret"}); err == nil {
		t.Fatal("a user carrying a password was saved")
	}
}

// FuzzParseAddress: whatever is accepted has a host that is a host and a
// port in range, and a refusal never echoes what it refused.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"h", "pat@h:22", "[::1]:5900", "ws://h:1/x", "vnc://u%3Ap@h", "h:pw", "ws://h/?pw=x"} {
		f.Add("ssh", s)
		f.Add("vnc", s)
	}
	f.Fuzz(func(t *testing.T, proto, s string) {
		ep, err := ParseAddress(proto, s)
		if err != nil {
			if len(s) > 8 && strings.Contains(err.Error(), s) {
				t.Fatalf("the refusal echoes %q", s)
			}
			return
		}
		if !validHost(ep.Host) || ep.Port < 0 || ep.Port > 65535 || strings.ContainsAny(ep.User, ":%@ ") {
			t.Fatalf("ParseAddress(%q, %q) accepted %+v", proto, s, ep)
		}
		if PasswordInAddress(s) {
			t.Fatalf("ParseAddress accepted a password: %q", s)
		}
	})
}

// TestParseAddressVNCForms: a VNC address written as vncviewer and
// vncdotool take it: HOST::PORT is a port, HOST:N below 100 is display N
// (port 5900+N, with a note saying so); a URL's port, an IPv6 address and
// other protocols keep their meaning.
func TestParseAddressVNCForms(t *testing.T) {
	for _, tc := range []struct {
		proto, addr string
		want        Endpoint
	}{
		{"vnc", "127.0.0.1::5960", Endpoint{Host: "127.0.0.1", Port: 5960}},
		{"vnc", "lab.local::60", Endpoint{Host: "lab.local", Port: 60}},
		{"vnc", "[::1]::5960", Endpoint{Host: "::1", Port: 5960}},
		{"vnc", "127.0.0.1:60", Endpoint{Host: "127.0.0.1", Port: 5960, Note: "display 60 → port 5960"}},
		{"vnc", "lab.local:0", Endpoint{Host: "lab.local", Port: 5900, Note: "display 0 → port 5900"}},
		{"vnc", "lab.local:99", Endpoint{Host: "lab.local", Port: 5999, Note: "display 99 → port 5999"}},
		{"vnc", "[::1]:1", Endpoint{Host: "::1", Port: 5901, Note: "display 1 → port 5901"}},
		{"vnc", "lab.local:100", Endpoint{Host: "lab.local", Port: 100}},
		{"vnc", "lab.local:5960", Endpoint{Host: "lab.local", Port: 5960}},
		{"vnc", "vnc://lab.local:60", Endpoint{Host: "lab.local", Port: 60}},
		{"vnc", "ws://lab.local:60/websockify", Endpoint{Host: "lab.local", Port: 60, URL: "ws://lab.local:60/websockify"}},
		{"vnc", "fe80::1", Endpoint{Host: "fe80::1"}},
		{"vnc", "::1", Endpoint{Host: "::1"}},
		{"ssh", "build.lan:60", Endpoint{Host: "build.lan", Port: 60}},
		{"rdp", "win.lan:10", Endpoint{Host: "win.lan", Port: 10}},
	} {
		got, err := ParseAddress(tc.proto, tc.addr)
		if err != nil || got != tc.want {
			t.Errorf("ParseAddress(%q, %q) = %+v, %v; want %+v", tc.proto, tc.addr, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ proto, addr, why string }{
		{"ssh", "build.lan::22", "VNC's way"},
		{"rdp", "win.lan::3389", "VNC's way"},
		{"vnc", "vnc://lab.local::5960", "without a scheme"},
		{"vnc", "lab.local::", "no port"},
		{"vnc", "lab.local::0", "1 to 65535"},
		{"vnc", "lab.local::70000", "1 to 65535"},
		{"vnc", "lab.local:-1", "1 to 65535"},
		{"vnc", "lab.local:+5", "1 to 65535"},
		{"vnc", "lab.local:::5", "neither"},
	} {
		_, err := ParseAddress(tc.proto, tc.addr)
		if err == nil || !strings.Contains(err.Error(), "BAD_REQUEST") || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("ParseAddress(%q, %q) = %v, want BAD_REQUEST saying %q", tc.proto, tc.addr, err, tc.why)
		}
	}
}
