package untrusted

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzText: whatever bytes a program on the remote desktop names a
// thing with, what dvv keeps is valid UTF-8, at most n bytes, and the
// start of what was sent (each byte that is not UTF-8 read as U+FFFD).
func FuzzText(f *testing.F) {
	f.Add("plain title", 8)
	f.Add("\xff\xfe\x1b[2J\u00e9\u4e16\U0001F600", 5)
	f.Add(strings.Repeat("\u00e9", 600), 1024)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<12 {
			return
		}
		got := Text(s, n)
		if !utf8.ValidString(got) {
			t.Fatalf("Text(%q, %d) = %q, not UTF-8", s, n, got)
		}
		if len(got) > n {
			t.Fatalf("Text(%q, %d) is %d bytes", s, n, len(got))
		}
		if !prefixRunes(s, got) {
			t.Fatalf("Text(%q, %d) = %q is not the start of what was sent", s, n, got)
		}
	})
}

// prefixRunes reports whether got is the first runes of s, each invalid
// byte of s read as U+FFFD (as ranging over a string reads it).
func prefixRunes(s, got string) bool {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= len(got) {
			break
		}
		b.WriteRune(r)
	}
	return b.String() == got
}
