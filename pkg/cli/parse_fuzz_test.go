package cli

import (
	"strings"
	"testing"
)

func TestSplitHostPort(t *testing.T) {
	cases := []struct {
		in   string
		host string
		port int
		ok   bool
	}{
		{"h", "h", 0, true},
		{"h:1", "h", 1, true},
		{"127.0.0.1:5951", "127.0.0.1", 5951, true},
		{"[::1]", "::1", 0, true},
		{"[::1]:22", "::1", 22, true},
		{"fe80::1", "fe80::1", 0, true},
		{"", "", 0, false},
		{":22", "", 0, false},
		{"h:0", "", 0, false},
		{"h:65536", "", 0, false},
		{"h:x", "", 0, false},
		{"[::1", "", 0, false},
		{"[::1]x", "", 0, false},
	}
	for _, c := range cases {
		host, port, err := splitHostPort(c.in)
		if (err == nil) != c.ok || (c.ok && (host != c.host || port != c.port)) {
			t.Errorf("splitHostPort(%q) = %q, %d, %v", c.in, host, port, err)
		}
	}
}

func TestParseRegion(t *testing.T) {
	if r, err := parseRegion(" 1, 2,3 ,4"); err != nil || r.X != 1 || r.Y != 2 || r.W != 3 || r.H != 4 {
		t.Errorf("got %+v %v", r, err)
	}
	for _, bad := range []string{"", "1,2,3", "1,2,3,4,5", "a,b,c,d", "1,2,0,4", "1,2,3,-4"} {
		if _, err := parseRegion(bad); err == nil {
			t.Errorf("parseRegion(%q) accepted", bad)
		}
	}
}

// The fuzz targets hold the parsers of command-line text to their
// contract: any input gives a value or a usage error, never a panic.

func FuzzSplitHostPort(f *testing.F) {
	for _, s := range []string{"h", "h:1", "[::1]:22", "[", "]:", "a:b:c", "[::1]:65535", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		host, port, err := splitHostPort(s)
		if err != nil {
			if _, ok := err.(*usageError); !ok {
				t.Fatalf("non-usage error %T", err)
			}
			return
		}
		if port < 0 || port > 65535 || host == "" && s != "" && !strings.HasPrefix(s, "[") {
			t.Fatalf("splitHostPort(%q) = %q, %d", s, host, port)
		}
	})
}

func FuzzParseRegion(f *testing.F) {
	for _, s := range []string{"0,0,1,1", "1,2,3", ",,,", "-1,-1,5,5", "9999999999999999999,0,1,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRegion(s)
		if err == nil && (r.W <= 0 || r.H <= 0) {
			t.Fatalf("parseRegion(%q) = %+v", s, r)
		}
	})
}

func FuzzParseMode(f *testing.F) {
	for _, s := range []string{"0644", "0o755", "7777", "17777", "", "0o"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseMode(s)
		if err == nil && (m < 0 || m > 0o7777) {
			t.Fatalf("parseMode(%q) = %o", s, m)
		}
	})
}

func FuzzLimbTarget(f *testing.F) {
	for _, s := range []string{"vnc-1a2b3c4d", "grp-1/0", "/", "a/b/c", "g/-1", "g/99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := limbTarget(s)
		if err != nil {
			return
		}
		if tg.LimbID == "" && (tg.GroupID == "" || tg.Member == nil || *tg.Member < 0) {
			t.Fatalf("limbTarget(%q) = %+v", s, tg)
		}
	})
}
