package cli

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// placeMasker replaces local paths, network addresses and user names in a
// bug-report bundle with numbered labels (<path-1>, <addr-1>, <user-1>):
// the same one gets the same label in every file, so the bundle still
// shows that two log lines are about one machine without saying which.
// Loopback addresses stay: they name no one's network.
type placeMasker struct {
	known  []knownName // host names, addresses and users read from hosts and limbs
	labels map[string]string
	counts map[string]int // by kind: "path", "addr", "user"
	masked map[string]int // replacements, by kind
}

// knownName is a name masked wherever it stands as a word, and its kind.
type knownName struct{ name, kind string }

func newPlaceMasker() *placeMasker {
	return &placeMasker{labels: map[string]string{}, counts: map[string]int{}, masked: map[string]int{}}
}

// knowAddress adds a host name or address that is masked wherever it
// stands as a word. An address may be a ws:// URL: its host is masked; or
// user@host[:port]: the user is masked as a user. One or two characters are
// left alone (an alias "a" would mangle every sentence); loopback names stay.
func (m *placeMasker) knowAddress(a string) {
	if u, err := url.Parse(a); err == nil && u.Host != "" {
		if u.User != nil {
			m.knowUser(u.User.Username())
		}
		a = u.Hostname()
	} else if user, host, ok := strings.Cut(a, "@"); ok {
		m.knowUser(user)
		a = host
	}
	if host, _, err := net.SplitHostPort(a); err == nil {
		a = host
	}
	a = strings.Trim(a, "[]")
	if len(a) < 3 || loopback(a) {
		return
	}
	m.known = append(m.known, knownName{a, "addr"})
}

// knowUser adds a user name (the local login, a saved host's user) that is
// masked wherever it stands as a word. Names every system has (root) say
// nothing of whose machine it is and stay, as do one or two characters.
func (m *placeMasker) knowUser(u string) {
	switch u {
	case "root", "admin", "administrator", "user", "nobody", "dvv", "dvvd":
		return
	}
	if len(u) < 3 {
		return
	}
	m.known = append(m.known, knownName{u, "user"})
}

func loopback(a string) bool {
	if strings.EqualFold(a, "localhost") {
		return true
	}
	ip := net.ParseIP(a)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

func (m *placeMasker) label(kind, value string) string {
	key := kind + "\x00" + value
	if l, ok := m.labels[key]; ok {
		m.masked[kind]++
		return l
	}
	m.counts[kind]++
	m.masked[kind]++
	l := fmt.Sprintf("<%s-%d>", kind, m.counts[kind])
	m.labels[key] = l
	return l
}

// A path starts with one slash after the start of a line, a space, a quote,
// '=', ':', or a bracket (so "linux/amd64", "1/2" and a URL's "//host" are
// not paths), and runs to a space, quote, bracket, comma, semicolon or colon.
var (
	pathRe = regexp.MustCompile(`(^|[\s"'=:(\[<{,])(/[A-Za-z0-9._~+@%-][^\s"'\\()\[\]{}<>,;:` + "`" + `]*)`)
	ipv4Re = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}\b`)
	ipv6Re = regexp.MustCompile(`[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}`)
)

// mask rewrites one file.
func (m *placeMasker) mask(b []byte) []byte {
	s := pathRe.ReplaceAllStringFunc(string(b), func(match string) string {
		sub := pathRe.FindStringSubmatch(match)
		p := strings.TrimRight(sub[2], ".")
		return sub[1] + m.label("path", p) + sub[2][len(p):]
	})
	s = m.maskKnown(s)
	s = ipv4Re.ReplaceAllStringFunc(s, func(a string) string {
		if net.ParseIP(a) == nil || loopback(a) {
			return a
		}
		return m.label("addr", a)
	})
	s = ipv6Re.ReplaceAllStringFunc(s, func(a string) string {
		// A time of day (14:02:29) is not an address: one needs "::" or
		// all eight groups.
		if net.ParseIP(a) == nil || loopback(a) || (!strings.Contains(a, "::") && strings.Count(a, ":") != 7) {
			return a
		}
		return m.label("addr", a)
	})
	return []byte(s)
}

// maskKnown replaces each known name where it stands as a name: not inside
// a longer one (build.corp.example is not masked as corp), longest first.
func (m *placeMasker) maskKnown(s string) string {
	names := append([]knownName(nil), m.known...)
	sort.SliceStable(names, func(i, j int) bool { return len(names[i].name) > len(names[j].name) })
	for _, known := range names {
		lower, want := asciiLower(s), asciiLower(known.name)
		var out strings.Builder
		from := 0
		for at := 0; ; {
			i := strings.Index(lower[at:], want)
			if i < 0 {
				break
			}
			i += at
			end := i + len(want)
			at = end
			if (i > 0 && nameByte(s[i-1])) || (end < len(s) && (nameByte(s[end]) || s[end] == '-')) {
				continue
			}
			out.WriteString(s[from:i])
			out.WriteString(m.label(known.kind, want))
			from = end
		}
		out.WriteString(s[from:])
		s = out.String()
	}
	return s
}

// nameByte is a byte that continues a host name on either side (a hyphen
// only after it: "ssh-gateway" is the alias gateway's host id).
func nameByte(c byte) bool {
	return c == '.' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// asciiLower lowers ASCII letters only, so every byte keeps its offset
// (host names are ASCII).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
