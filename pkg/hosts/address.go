package hosts

import (
	"fmt"
	"net"
	"strconv"
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

// Endpoint is an address taken apart: an optional user (SSH only), a host
// and an optional port. URL is the whole address when it is a ws:// or
// wss:// URL (VNC over WebSocket), which is dialled as written.
type Endpoint struct {
	User string
	Host string
	Port int
	URL  string
	// Note says how a VNC display number became the port ("display 60 →
	// port 5960"); empty when the port was written as a port.
	Note string
}

// VNC display numbers, as TigerVNC's vncviewer reads them: in HOST:N an N
// below maxDisplay is display N, port displayBase+N; HOST::PORT is always
// a port.
const (
	displayBase = 5900
	maxDisplay  = 100
)

// addressNext is the advice every refused address carries.
const addressNext = "give a host name or IP, optionally :PORT (or --port), and for SSH user@ in front (or --user); " +
	"a password goes to the keychain: printf '%s\\n' \"$PW\" | dvv hosts add NAME --address HOST --protocol P --password-stdin"

// badAddress refuses an address without echoing it: a mistaken paste may
// be a password.
func badAddress(why string) error {
	return &wire.Error{Code: wire.BadRequest, Message: "the address " + why + "; it was not used, stored or logged", Next: addressNext}
}

// ParseAddress accepts exactly what an address may be: [user@]host[:port]
// (the user for SSH only), [v6]:port, a bare IPv6 address, the same after
// vnc://, rdp:// or ssh://, or for VNC a ws:// or wss:// URL with a path.
// A VNC address written without a scheme also takes the forms vncviewer
// and vncdotool take: HOST::PORT (a port), and HOST:N with N below 100,
// display N, which is port 5900+N (Note says so). A URL's port is always a
// port.
// Everything else is refused before it can become a limb's host name that
// is dialled, logged and shown: percent-encoding, a query or fragment, a
// port that is not a number, a password anywhere. protocol may be "" when
// the caller does not know it yet (a user is then allowed).
func ParseAddress(protocol, addr string) (Endpoint, error) {
	if err := CheckAddress(addr); err != nil {
		return Endpoint{}, err
	}
	if err := checkAddressText(addr); err != nil {
		return Endpoint{}, err
	}
	rest, schemed := addr, false
	if scheme, after, ok := strings.Cut(addr, "://"); ok {
		schemed = true
		scheme = strings.ToLower(scheme)
		if scheme == "ws" || scheme == "wss" {
			if protocol != "" && protocol != wire.ProtoVNC {
				return Endpoint{}, badAddress("is a " + scheme + ":// URL, which only VNC dials")
			}
			return parseWebSocket(after, addr)
		}
		var err error
		if protocol, err = schemeProtocol(scheme, protocol); err != nil {
			return Endpoint{}, err
		}
		rest = strings.TrimSuffix(after, "/")
	}
	if strings.Contains(rest, "/") {
		return Endpoint{}, badAddress("has a path; only ws:// and wss:// URLs take one")
	}
	return parseAuthority(protocol, rest, protocol == wire.ProtoVNC && !schemed)
}

// checkAddressText refuses what no address has: nothing, too much,
// spaces, control or non-ASCII characters, percent-encoding, a query or
// fragment.
func checkAddressText(addr string) error {
	switch {
	case addr == "":
		return badAddress("is empty")
	case len(addr) > 255:
		return badAddress("is over 255 bytes")
	case strings.IndexFunc(addr, func(r rune) bool { return r <= ' ' || r == 0x7f || r > 0x7e }) >= 0:
		return badAddress("has spaces, control or non-ASCII characters")
	case strings.Contains(addr, "%"):
		return badAddress("is percent-encoded; a host name never is")
	case strings.ContainsAny(addr, "?#"):
		return badAddress("has a query or fragment (?…, #…), which may carry a secret")
	}
	return nil
}

// schemeProtocol is the protocol a vnc://, rdp:// or ssh:// scheme names,
// which must agree with the one given (if any).
func schemeProtocol(scheme, protocol string) (string, error) {
	if scheme != wire.ProtoVNC && scheme != wire.ProtoRDP && scheme != wire.ProtoSSH {
		return "", badAddress("has a scheme other than vnc://, rdp://, ssh://, ws:// or wss://")
	}
	if protocol != "" && protocol != scheme {
		return "", badAddress("starts with " + scheme + ":// but the protocol is " + protocol)
	}
	return scheme, nil
}

// parseAuthority takes apart [user@]host[:port]; with vncForms also
// host::port and host:display (see ParseAddress).
func parseAuthority(protocol, s string, vncForms bool) (Endpoint, error) {
	var ep Endpoint
	if at := strings.LastIndexByte(s, '@'); at >= 0 {
		if protocol != "" && protocol != wire.ProtoSSH {
			return ep, badAddress("names a user, which only an SSH address may; for " + protocol + " save the machine with dvv hosts add --user")
		}
		ep.User, s = s[:at], s[at+1:]
		if err := CheckUser(ep.User); err != nil || ep.User == "" || strings.ContainsAny(ep.User, `@\`) {
			return Endpoint{}, badAddress("has a user that is not a user name")
		}
	}
	host, portText, literalPort, err := splitHostPort(protocol, s, vncForms)
	if err != nil {
		return Endpoint{}, err
	}
	if !validHost(host) {
		return Endpoint{}, badAddress("has no host name or IP where the host goes")
	}
	ep.Host = host
	if portText == "" {
		return ep, nil
	}
	p, err := strconv.Atoi(portText)
	if vncForms && !literalPort && err == nil && portText[0] != '+' && p >= 0 && p < maxDisplay {
		ep.Port = displayBase + p
		ep.Note = fmt.Sprintf("display %d → port %d", p, ep.Port)
		return ep, nil
	}
	if err != nil || p < 1 || p > 65535 || portText[0] == '+' {
		return Endpoint{}, badAddress("has something after the host's : that is not a port from 1 to 65535")
	}
	ep.Port = p
	return ep, nil
}

// splitHostPort takes host[:port], [v6][:port] and, with vncForms,
// host::port (literalPort: a port, never a display number) apart.
func splitHostPort(protocol, s string, vncForms bool) (host, portText string, literalPort bool, err error) {
	switch {
	case strings.HasPrefix(s, "["):
		return splitBracketed(protocol, s, vncForms)
	case strings.Count(s, ":") == 2 && strings.Contains(s, "::") && !strings.HasPrefix(s, "::") && net.ParseIP(s) == nil:
		// host::port; an IPv6 address ("fe80::1") stays an address.
		if !vncForms {
			return "", "", false, badAddress(doubleColonWhy(protocol))
		}
		host, portText, _ = strings.Cut(s, "::")
		if portText == "" {
			return "", "", false, badAddress("ends in :: with no port")
		}
		return host, portText, true, nil
	case strings.Count(s, ":") == 1:
		host, portText, _ = strings.Cut(s, ":")
		if portText == "" {
			return "", "", false, badAddress("ends in : with no port")
		}
		return host, portText, false, nil
	case strings.Count(s, ":") > 1:
		if net.ParseIP(s) == nil {
			return "", "", false, badAddress("is neither host:port nor an IPv6 address")
		}
	}
	return s, "", false, nil
}

// splitBracketed takes [v6], [v6]:port and, with vncForms, [v6]::port
// apart.
func splitBracketed(protocol, s string, vncForms bool) (host, portText string, literalPort bool, err error) {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return "", "", false, badAddress("opens [ without ]")
	}
	host, portText = s[1:end], s[end+1:]
	if net.ParseIP(host) == nil {
		return "", "", false, badAddress("has [brackets] around something that is not an IPv6 address")
	}
	if portText == "" {
		return host, "", false, nil
	}
	if !strings.HasPrefix(portText, ":") {
		return "", "", false, badAddress("has something after ] that is not :PORT")
	}
	portText = portText[1:]
	if strings.HasPrefix(portText, ":") {
		if !vncForms {
			return "", "", false, badAddress(doubleColonWhy(protocol))
		}
		portText, literalPort = portText[1:], true
	}
	if portText == "" {
		return "", "", false, badAddress("ends in : with no port")
	}
	return host, portText, literalPort, nil
}

// doubleColonWhy refuses HOST::PORT outside VNC, saying how to write it.
func doubleColonWhy(protocol string) string {
	if protocol == "" || protocol == wire.ProtoVNC {
		return "has HOST::PORT, which only a VNC address written without a scheme takes; write vnc://HOST:PORT, or HOST::PORT with --protocol vnc"
	}
	return "has HOST::PORT, which is VNC's way of writing a port; for " + protocol + " write HOST:PORT"
}

// parseWebSocket checks a ws:// or wss:// URL: a host, an optional port and
// path, no user-info (a password goes to the keychain, a user to --user).
func parseWebSocket(after, whole string) (Endpoint, error) {
	authority, path, _ := strings.Cut(after, "/")
	if strings.Contains(authority, "@") {
		return Endpoint{}, badAddress("is a WebSocket URL with user-info; save the user with dvv hosts add --user")
	}
	for _, r := range path {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._~-", r)) {
			return Endpoint{}, badAddress("has a URL path with characters other than letters, digits and / . _ ~ -")
		}
	}
	ep, err := parseAuthority(wire.ProtoVNC, authority, false)
	if err != nil {
		return Endpoint{}, err
	}
	ep.URL = whole
	return ep, nil
}

// validHost accepts an IP address or a DNS name (or ~/.ssh/config alias):
// labels of letters, digits, '-' and '_' separated by dots.
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	if net.ParseIP(h) != nil {
		return true
	}
	for i, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || (i == 0 && label[0] == '-') {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// CheckUser refuses a user name that carries a password ("pat:secret") or
// anything no account name has: the user is stored, logged and shown.
func CheckUser(user string) error {
	switch {
	case strings.Contains(user, ":"):
		return &wire.Error{Code: wire.BadRequest,
			Message: "the user carries a password (user:password); dvv never takes a password there, and this one was not used, stored or logged",
			Next:    "give the user alone and the password with --password-stdin: printf '%s\\n' \"$PW\" | dvv hosts add NAME --address HOST --protocol P --user USER --password-stdin"}
	case strings.HasPrefix(user, "-"):
		// ssh and scp read "-oProxyCommand=…" as an option, not a user:
		// such a name would run a command wherever it reaches a command line.
		return &wire.Error{Code: wire.BadRequest, Message: "the user starts with '-', which ssh and other tools read as an option (e.g. -oProxyCommand=…); it was not stored",
			Next: "give the account name as the server knows it; no account name starts with '-'"}
	case len(user) > 256 || strings.Contains(user, "%") || strings.IndexFunc(user, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		return &wire.Error{Code: wire.BadRequest, Message: "the user has spaces, control characters or percent-encoding, or is over 256 bytes; it was not stored",
			Next: "give the account name as the server knows it (RDP may take DOMAIN\\user or user@domain)"}
	}
	return nil
}
