// Package redact finds and removes secrets in text that is about to leave
// the machine (a bug-report bundle): dvv tokens, private keys, passwords in
// URLs and "password=" pairs, plus any exact values the caller knows to be
// secret. The tests use the same scanner to prove that nothing dvv writes
// carries a secret, so the bundle and the tests agree on what one looks like.
package redact

import (
	"bytes"
	"regexp"
	"sort"
	"sync"
)

// Mask replaces every secret found.
const Mask = "[REDACTED]"

// Finding is one secret found: its kind and byte offset (never its value).
type Finding struct {
	Kind   string `json:"kind"`
	Offset int    `json:"offset"`
}

type pattern struct {
	kind string
	re   *regexp.Regexp
	sub  int // submatch holding the secret (0: the whole match)
	// need is a literal every match contains ("" when none): text
	// without it is not scanned with re at all, which keeps a large log
	// cheap to scrub (a regexp without a literal prefix runs its slowest
	// engine over every byte).
	need string
}

// patterns are the shapes of secrets that need no list to be recognised.
// A token is "dvv_" plus 43 base64url characters (32 random bytes).
// Compiled on first use: the dvv binary links this package for `dvv
// report`, and every other dvv call would pay for the compiling.
var patterns = sync.OnceValue(func() []pattern {
	return []pattern{
		{"dvv-token", regexp.MustCompile(`dvv_[A-Za-z0-9_-]{43}`), 0, "dvv_"},
		{"private-key", regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----`), 0, "PRIVATE KEY-----"},
		{"url-password", regexp.MustCompile(`://[^/\s:@]*:([^/\s@]+)@`), 1, "://"},
		{"password-field", regexp.MustCompile(`(?i)"?(?:password|passwd|secret|token)"?\s*[:=]\s*"([^"\s]+)"`), 1, ""},
		{"password-field", regexp.MustCompile(`(?i)\b(?:password|passwd|secret|token)=([^\s"&]+)`), 1, "="},
		// What dvvd refuses in addresses, for logs and files written before
		// it did (or by another program): percent-encoded user-info
		// ("pat%3Apw@host"), a password where the port goes ("host:pw"),
		// user:pw@host without a scheme, a query ("?pw=…"), and a user
		// that carries ":password".
		{"url-password", regexp.MustCompile(`%3[aA]([^\s/@"'<>]+)@`), 1, "%3"},
		{"url-password", regexp.MustCompile(`://[A-Za-z0-9._-]+:([^/\s@"'?#:]*[^0-9/\s@"'?#:][^/\s@"'?#:]*)(?:[/"'\s?#]|$)`), 1, "://"},
		{"address-password", regexp.MustCompile(`address(?:es)?"?\s*[:=]\s*\[?"?[A-Za-z0-9._-]+:([^"\s/@:]*[^0-9"\s/@:][^"\s/@:]*)(?:["\s,\]]|$)`), 1, "address"},
		{"address-password", regexp.MustCompile(`address(?:es)?"?\s*[:=]\s*\[?"?[^"\s:@/]*:([^"\s@/]+)@`), 1, "address"},
		{"address-password", regexp.MustCompile(`address(?:es)?"?\s*[:=]\s*\[?"?[^"\s?]*\?([^"\s#]+)`), 1, "address"},
		{"query-password", regexp.MustCompile(`(?i)[?&](?:pw|pwd|pass|passwd|password|passphrase|secret|token|key|k|auth|apikey|api_key)=([^\s"'&#]+)`), 1, "?"},
		{"user-password", regexp.MustCompile(`user(?:name)?"?\s*[:=]\s*"?[^"\s:@/]+:([^"\s@/]+)`), 1, "user"},
		{"user-password", regexp.MustCompile(`User"?\s*[:=]\s*"?[^"\s:@/]+:([^"\s@/]+)`), 1, "User"},
	}
})

// Scanner finds secrets: the built-in shapes plus known values.
type Scanner struct {
	known [][]byte
}

// New returns a scanner that also finds each of the known values (values
// shorter than 4 bytes are ignored: they would match ordinary text).
func New(known ...string) *Scanner {
	s := &Scanner{}
	for _, k := range known {
		if len(k) >= 4 {
			s.known = append(s.known, []byte(k))
		}
	}
	return s
}

type span struct {
	start, end int
	kind       string
}

func (s *Scanner) spans(b []byte) []span {
	var out []span
	masked := maskSpans(b)
	for _, p := range patterns() {
		if p.need != "" && !bytes.Contains(b, []byte(p.need)) {
			continue
		}
		for _, m := range p.re.FindAllSubmatchIndex(b, -1) {
			start, end := m[2*p.sub], m[2*p.sub+1]
			if start < 0 || start == end || within(masked, start, end) { // already scrubbed
				continue
			}
			out = append(out, span{start, end, p.kind})
		}
	}
	for _, k := range s.known {
		for off := 0; ; {
			i := bytes.Index(b[off:], k)
			if i < 0 {
				break
			}
			out = append(out, span{off + i, off + i + len(k), "known-secret"})
			off += i + len(k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// maskSpans are where b already holds Mask.
func maskSpans(b []byte) []span {
	var out []span
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(Mask))
		if i < 0 {
			return out
		}
		out = append(out, span{start: off + i, end: off + i + len(Mask)})
		off += i + len(Mask)
	}
}

// within reports whether [start, end) lies inside one of the masks: a
// pattern that matches part of an earlier scrub finds nothing new.
func within(masks []span, start, end int) bool {
	for _, m := range masks {
		if start >= m.start && end <= m.end {
			return true
		}
	}
	return false
}

// Scrub returns b with every secret replaced by Mask, and what was found.
func (s *Scanner) Scrub(b []byte) ([]byte, []Finding) {
	sps := s.spans(b)
	if len(sps) == 0 {
		return b, nil
	}
	var out bytes.Buffer
	var fs []Finding
	last := 0
	for _, sp := range sps {
		if sp.start < last { // overlaps one already masked
			if sp.end > last {
				last = sp.end
			}
			continue
		}
		out.Write(b[last:sp.start])
		out.WriteString(Mask)
		fs = append(fs, Finding{Kind: sp.kind, Offset: sp.start})
		last = sp.end
	}
	out.Write(b[last:])
	return out.Bytes(), fs
}
