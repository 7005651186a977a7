package redact

import (
	"bytes"
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	tok := "dvv_" + strings.Repeat("A1b-_", 8) + "xyz"
	cases := []struct {
		name, in, want string
		kinds          []string
	}{
		{"clean", `{"op":"status","limbId":"vnc-1"}`, `{"op":"status","limbId":"vnc-1"}`, nil},
		{"token", "DVV_TOKEN=" + tok + " dvv ping", "DVV_TOKEN=" + Mask + " dvv ping", []string{"dvv-token"}},
		{"url", "open vnc://:hunter22@10.0.0.5:5900 now", "open vnc://:" + Mask + "@10.0.0.5:5900 now", []string{"url-password"}},
		{"url user", "ssh://me:pw12345@box/x", "ssh://me:" + Mask + "@box/x", []string{"url-password"}},
		{"url no password", "ssh://me@box:22", "ssh://me@box:22", nil},
		{"json field", `{"password":"s3cr3t!"}`, `{"password":"` + Mask + `"}`, []string{"password-field"}},
		{"kv", "login password=abc123&x=1", "login password=" + Mask + "&x=1", []string{"password-field"}},
		{"known", "typed Zq7pw9xK into it", "typed " + Mask + " into it", []string{"known-secret"}},
		{"key", "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\nb", "a\n" + Mask + "\nb", []string{"private-key"}},
		{"masked stays", `{"password":"` + Mask + `"}`, `{"password":"` + Mask + `"}`, nil},
	}
	s := New("Zq7pw9xK", "ab") // "ab" is too short to be listed
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, fs := s.Scrub([]byte(c.in))
			if string(got) != c.want {
				t.Fatalf("Scrub(%q) = %q, want %q", c.in, got, c.want)
			}
			if len(fs) != len(c.kinds) {
				t.Fatalf("findings %+v, want kinds %v", fs, c.kinds)
			}
			for i, f := range fs {
				if f.Kind != c.kinds[i] {
					t.Fatalf("finding %d kind %q, want %q", i, f.Kind, c.kinds[i])
				}
			}
			if again := s.Find(got); len(again) != 0 {
				t.Fatalf("scrubbed text still has secrets: %+v", again)
			}
		})
	}
}

func FuzzScrub(f *testing.F) {
	f.Add([]byte(`{"password":"x1234"} vnc://:pw@h dvv_`))
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----"))
	s := New("Zq7pw9xK")
	f.Fuzz(func(t *testing.T, b []byte) {
		out, _ := s.Scrub(b)
		if bytes.Contains(out, []byte("Zq7pw9xK")) {
			t.Fatalf("known secret survived: %q", out)
		}
	})
}

// TestScrubAddressForms feeds the scanner every form of a password in an
// address that dvvd refuses, as a log line (slog text), a report's JSON
// and a plain command line: none may survive, and ordinary addresses stay.
func TestScrubAddressForms(t *testing.T) {
	const pw = "Hunter2xyz"
	leaky := []string{
		"vnc://pat%3A" + pw + "@10.0.0.5:5900",
		"pat%3a" + pw + "@10.0.0.5",
		`"address":"pat%3A` + pw + `@10.0.0.5"`,
		"vnc://10.0.0.5:" + pw,
		"ssh://build.lan:" + pw + "/",
		`"address":"10.0.0.5:` + pw + `"`,
		`address=10.0.0.5:` + pw + ` port=5900`,
		`"addresses":["10.0.0.5:` + pw + `"]`,
		`"address":"pat:` + pw + `@10.0.0.5"`,
		"ws://10.0.0.5:6080/websockify?password=" + pw,
		"wss://10.0.0.5/websockify?pw=" + pw + "&x=1",
		"ws://10.0.0.5/w?token=" + pw,
		`"address":"ws://10.0.0.5/w?` + pw + `"`,
		`"user":"pat:` + pw + `"`,
		`"sshUser":"pat:` + pw + `"`,
		`msg="limb opened" user=pat:` + pw + ` address=h`,
	}
	s := New()
	for _, in := range leaky {
		out, fs := s.Scrub([]byte(in))
		if strings.Contains(string(out), pw) || len(fs) == 0 {
			t.Errorf("Scrub(%q) = %q (%d findings)", in, out, len(fs))
		}
		if again := s.Find(out); len(again) != 0 {
			t.Errorf("Scrub(%q) = %q still has %+v", in, out, again)
		}
	}
	for _, clean := range []string{
		`"address":"10.0.0.5","port":5900`, `"address":"10.0.0.5:5900"`, `"address":"::1"`, `"address":"2001:db8::1"`,
		`"address":"ws://127.0.0.1:6080/websockify"`, "http://127.0.0.1:8080/viewer", "ssh://pat@build.lan:22",
		`"user":"pat"`, `user=pat address=build.lan`, `"addresses":["10.0.0.5:5901","[::1]:5902"]`, "vnc://[::1]:5900",
	} {
		if fs := s.Find([]byte(clean)); len(fs) != 0 {
			t.Errorf("Find(%q) = %+v; nothing secret there", clean, fs)
		}
	}
}

// BenchmarkScrubLog scrubs 1 MiB of dvvd log lines, as dvv report does
// with the log tail (see the need field of pattern).
func BenchmarkScrubLog(b *testing.B) {
	line := `time=2026-12-01T14:18:59.518Z level=INFO msg="limb opened" limb=ssh-ecf8047c protocol=ssh address=127.0.0.1 port=46573 slot=0 user=pat` + "\n"
	buf := []byte(strings.Repeat(line, 1<<20/len(line)))
	s := New()
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		s.Scrub(buf)
	}
}
