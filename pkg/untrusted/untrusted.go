// Package untrusted bounds text a remote machine sent (a window title, an
// accessible element's name) before dvv keeps or repeats it: any program
// on the remote desktop may name a thing with megabytes of arbitrary bytes.
package untrusted

import (
	"strings"
	"unicode/utf8"
)

// Text is s as valid UTF-8, each byte that is not read as U+FFFD, cut to at
// most n bytes on a character. Control characters are kept: answers are
// JSON, and the CLI escapes them for a terminal.
func Text(s string, n int) string {
	if len(s) <= n && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // ranging reads each invalid byte as U+FFFD
		if b.Len()+utf8.RuneLen(r) > n {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
