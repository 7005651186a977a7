package cli

import (
	"strings"
	"testing"
)

func TestPlaceMaskerMasksPathsAndAddresses(t *testing.T) {
	m := newPlaceMasker()
	for _, a := range []string{"build.corp.example", "gateway", "127.0.0.1", "ws://kvm.lab.example:8080/websockify", "db"} {
		m.knowAddress(a)
	}
	in := `time=2026-12-01T14:02:29.316Z level=INFO msg=listening socket=/run/user/1000/dvv/default.sock pid=7
"detail": "/home/alice/.ssh/config: 1 host alias(es)"
msg="limb opened" address=198.51.100.7 port=5900 and 198.51.100.7 again; BUILD.corp.example:5900, corp.example
"id": "ssh-gateway", "name": "gateway", "gatewayd": 1, "gateway-2": 2
bus unix:path=/tmp/x/no-bus (dial unix /tmp/x/no-bus: connect)
local 127.0.0.1:5901 [::1]:22 fe80::1ff:fe23:4567:890a 2001:db8:0:0:0:0:0:7 ws://kvm.lab.example:8080/websockify
linux/amd64 1/2 image/png db-server the db ~/.config/dvv/credentials`
	got := string(m.mask([]byte(in)))
	for _, gone := range []string{"/run/user", "/home/alice", "198.51.100.7", "build.corp", "BUILD", `"gateway"`, "ssh-gateway", "/tmp/x",
		"fe80::", "2001:db8", "kvm.lab"} {
		if strings.Contains(got, gone) {
			t.Errorf("%q is still there:\n%s", gone, got)
		}
	}
	for _, kept := range []string{"14:02:29.316Z", "127.0.0.1:5901", "[::1]:22", "linux/amd64", "1/2", "image/png", "gatewayd", "gateway-2",
		"db-server", "the db", "corp.example", ":5900", "~/.config/dvv/credentials", "<path-1>", "address=<addr-4> port=5900 and <addr-4> again", "(dial unix <path-3>: connect)"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q was lost:\n%s", kept, got)
		}
	}
	if m.counts["path"] != 3 || m.masked["path"] != 4 {
		t.Errorf("paths: %d distinct, %d masked\n%s", m.counts["path"], m.masked["path"], got)
	}
}

func TestPlaceMaskerMasksUserNames(t *testing.T) {
	m := newPlaceMasker()
	m.knowUser("alice")
	m.knowUser("root")
	m.knowAddress("bob@build.corp.example:22")
	m.knowAddress("ssh://carol@kvm.lab.example")
	in := `msg="ssh: handshake" user=bob host=build.corp.example
alice opened a limb; Alice again; malice and alice2 are other words
"address": "carol@kvm.lab.example", "user": "root", bob@build.corp.example`
	got := string(m.mask([]byte(in)))
	for _, gone := range []string{"bob", "alice opened", "Alice again", "carol", "build.corp", "kvm.lab"} {
		if strings.Contains(got, gone) {
			t.Errorf("%q is still there:\n%s", gone, got)
		}
	}
	for _, kept := range []string{"malice", "alice2", `"user": "root"`, "user=<user-", "<user-1> opened", "<user-1> again"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q was lost:\n%s", kept, got)
		}
	}
	if m.counts["user"] != 3 {
		t.Errorf("%d distinct user names masked, want 3 (alice, bob, carol)\n%s", m.counts["user"], got)
	}
}
