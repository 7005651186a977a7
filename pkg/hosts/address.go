package hosts

import (
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// PasswordInAddress reports whether an address carries a password in its
// user-info: "user:pw@host", ":pw@host", "vnc://:pw@host:5900" or
// "wss://u:pw@host/path". A user name alone ("pat@host") is not a secret.
func PasswordInAddress(addr string) bool {
	rest := addr
	if _, after, ok := strings.Cut(rest, "://"); ok {
		rest = after
	}
	// The authority ends at the first '/', '?' or '#'.
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return false
	}
	return strings.Contains(rest[:at], ":")
}

// CheckAddress refuses an address with a password in it, with the way to
// store the password instead. The address itself is never echoed: it holds
// the secret.
func CheckAddress(addr string) error {
	if !PasswordInAddress(addr) {
		return nil
	}
	return &wire.Error{Code: wire.BadRequest,
		Message: "the address carries a password (user:password@host); dvv never takes a password in an address, and this one was not used, stored or logged",
		Next:    "save the machine with its password in the keychain instead: printf '%s\\n' \"$PW\" | dvv hosts add NAME --address HOST --protocol P --password-stdin, then open NAME"}
}
