package wire

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of the text one client chooses and other people read: the
// attachment name shown as a lease's holder, the session key it comes
// with, and a lease's reason (shown to the person on acquire, recorded on
// yield). Besides the length, each must be printable (CheckLabel): a
// control character in it would reach the terminal of whoever lists the
// leases, where ESC retitles or clears it and a newline draws a fake line.
const (
	MaxNameBytes    = 64
	MaxSessionBytes = 128
	MaxReasonBytes  = 256
)

// CheckLabel refuses, as BAD_REQUEST with next as its hint, text that is
// not valid UTF-8, holds a character that is not printable (a control
// character, newline or tab, DEL, a C1 control, a format character such
// as a bidirectional override), or is longer than max bytes.
func CheckLabel(field, s string, max int, next string) *Error {
	var why string
	switch {
	case len(s) > max:
		why = fmt.Sprintf("is %d bytes, longer than %d", len(s), max)
	case !utf8.ValidString(s):
		why = "is not valid UTF-8"
	default:
		if i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }); i >= 0 {
			r, _ := utf8.DecodeRuneInString(s[i:])
			why = fmt.Sprintf("holds the unprintable character %U at byte %d", r, i)
		}
	}
	if why == "" {
		return nil
	}
	return &Error{Code: BadRequest, Message: fmt.Sprintf("%s %s; it is shown to people as text", field, why), Next: next}
}

// CleanLabel makes s a name CheckLabel takes: each unprintable character
// becomes '?', and it is cut to max bytes on a character boundary. For a
// name dvv passes on rather than chooses (an MCP client's).
func CleanLabel(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	for len(s) > max {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
