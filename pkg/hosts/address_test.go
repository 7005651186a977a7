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
