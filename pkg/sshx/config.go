package sshx

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Config is a parsed ssh_config(5) file: an ordered list of Host blocks.
// Only the keywords dvv acts on are kept; the rest are skipped, as OpenSSH
// would skip keywords it applies elsewhere.
type Config struct {
	blocks []hostBlock
}

type hostBlock struct {
	patterns []string // Host patterns; "!" negates
	never    bool     // a Match block we do not evaluate: never applies
	settings []setting
}

type setting struct {
	key  string // lower case keyword
	args []string
}

// HostSettings is what the configuration says about one host, after OpenSSH's
// rule that the first value obtained for a keyword wins (IdentityFile
// accumulates instead).
type HostSettings struct {
	HostName           string
	User               string
	Port               int
	IdentityFiles      []string // raw, before ~ and % expansion
	IdentitiesOnly     bool
	UserKnownHosts     []string
	HashKnownHosts     bool
	IdentityAgent      string
	ConnectTimeoutSecs int
}

// limits on what a configuration file may make us hold: a hostile or broken
// file must not exhaust memory.
const (
	maxConfigLine    = 64 << 10
	maxConfigBytes   = 4 << 20
	maxIncludeDepth  = 16
	maxConfigBlocks  = 10000
	maxSettingsBlock = 1000
)

// ParseConfig reads an ssh_config file. Include directives are resolved
// relative to sshDir (normally ~/.ssh); pass "" to ignore them.
func ParseConfig(r io.Reader, sshDir string) (*Config, error) {
	c := &Config{blocks: []hostBlock{{patterns: []string{"*"}}}}
	if err := c.parse(r, sshDir, 0); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadConfig reads a configuration file; a missing file is an empty config.
func LoadConfig(path, sshDir string) (*Config, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseConfig(f, sshDir)
}

func (c *Config) parse(r io.Reader, sshDir string, depth int) error {
	sc := bufio.NewScanner(io.LimitReader(r, maxConfigBytes))
	sc.Buffer(make([]byte, 0, 4096), maxConfigLine)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		key, args, err := splitConfigLine(sc.Text())
		if err != nil {
			return fmt.Errorf("ssh config line %d: %v", lineNo, err)
		}
		if key == "" {
			continue
		}
		switch key {
		case "host":
			if len(c.blocks) >= maxConfigBlocks {
				return fmt.Errorf("ssh config: more than %d Host blocks", maxConfigBlocks)
			}
			c.blocks = append(c.blocks, hostBlock{patterns: args})
		case "match":
			// Only "Match all" is evaluated; other criteria (exec, user,
			// canonical…) are outside what dvv applies, so such a block
			// never matches rather than matching wrongly.
			all := len(args) == 1 && strings.EqualFold(args[0], "all")
			c.blocks = append(c.blocks, hostBlock{patterns: []string{"*"}, never: !all})
		case "include":
			if sshDir == "" || depth >= maxIncludeDepth {
				continue
			}
			for _, a := range args {
				c.include(a, sshDir, depth+1)
			}
		default:
			b := &c.blocks[len(c.blocks)-1]
			if len(b.settings) < maxSettingsBlock {
				b.settings = append(b.settings, setting{key: key, args: args})
			}
		}
	}
	return sc.Err()
}

// include merges the files a pattern names, in lexical order as OpenSSH
// does; unreadable files are skipped as OpenSSH skips them.
func (c *Config) include(pattern, sshDir string, depth int) {
	p := expandTilde(pattern, filepath.Dir(sshDir))
	if !filepath.IsAbs(p) {
		p = filepath.Join(sshDir, p)
	}
	matches, _ := filepath.Glob(p)
	for _, m := range matches {
		f, err := os.Open(m)
		if err != nil {
			continue
		}
		// An included file's settings land in the block that is current
		// where the Include stands, and a Host line inside it starts a new
		// block, exactly as if the text were pasted in.
		_ = c.parse(f, sshDir, depth)
		f.Close()
	}
}

// splitConfigLine splits "Keyword args…" or "Keyword=args…", honouring
// double quotes and # comments.
func splitConfigLine(line string) (key string, args []string, err error) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", nil, nil
	}
	// The keyword ends at whitespace or '='.
	i := strings.IndexAny(line, " \t=")
	if i < 0 {
		return strings.ToLower(line), nil, nil
	}
	key = strings.ToLower(line[:i])
	rest := strings.TrimLeft(line[i:], " \t")
	if strings.HasPrefix(rest, "=") {
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	for rest != "" {
		if rest[0] == '#' {
			break
		}
		var word string
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return "", nil, fmt.Errorf("unterminated quote")
			}
			word, rest = rest[1:1+end], rest[2+end:]
		} else {
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			word, rest = rest[:end], rest[end:]
		}
		args = append(args, word)
		rest = strings.TrimLeft(rest, " \t")
	}
	return key, args, nil
}

// Lookup returns the settings that apply to alias (the name the user typed).
func (c *Config) Lookup(alias string) HostSettings {
	var hs HostSettings
	seen := map[string]bool{}
	for _, b := range c.blocks {
		if b.never || !MatchHostPatterns(b.patterns, alias) {
			continue
		}
		for _, s := range b.settings {
			if len(s.args) == 0 {
				continue
			}
			if s.key == "identityfile" {
				if !strings.EqualFold(s.args[0], "none") {
					hs.IdentityFiles = append(hs.IdentityFiles, s.args[0])
				}
				continue
			}
			if seen[s.key] {
				continue
			}
			seen[s.key] = true
			a := s.args[0]
			switch s.key {
			case "hostname":
				hs.HostName = a
			case "user":
				hs.User = a
			case "port":
				if p, err := strconv.Atoi(a); err == nil && p > 0 && p < 65536 {
					hs.Port = p
				}
			case "identitiesonly":
				hs.IdentitiesOnly = yes(a)
			case "userknownhostsfile":
				hs.UserKnownHosts = append([]string(nil), s.args...)
			case "hashknownhosts":
				hs.HashKnownHosts = yes(a)
			case "identityagent":
				hs.IdentityAgent = a
			case "connecttimeout":
				if n, err := strconv.Atoi(a); err == nil && n > 0 {
					hs.ConnectTimeoutSecs = n
				}
			default:
				delete(seen, s.key) // not ours: keep no record
			}
		}
	}
	return hs
}

func yes(s string) bool { return strings.EqualFold(s, "yes") || strings.EqualFold(s, "true") }

// MatchHostPatterns applies a Host line: some pattern matches and no
// negated one does. Matching is case-insensitive, as OpenSSH's.
func MatchHostPatterns(patterns []string, host string) bool {
	host = strings.ToLower(host)
	matched := false
	for _, p := range patterns {
		for _, q := range strings.Split(p, ",") {
			neg := strings.HasPrefix(q, "!")
			if neg {
				q = q[1:]
			}
			if q == "" || !wildMatch(strings.ToLower(q), host) {
				continue
			}
			if neg {
				return false
			}
			matched = true
		}
	}
	return matched
}

// wildMatch matches * (any run) and ? (one byte), iteratively so that a
// hostile pattern cannot recurse without bound.
func wildMatch(pat, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pat) && (pat[p] == '?' || pat[p] == s[i]):
			p++
			i++
		case p < len(pat) && pat[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

// Tokens are the values substituted for % sequences.
type Tokens struct {
	Host       string // %h: the HostName after resolution
	Alias      string // %n: the name typed
	Port       int    // %p
	RemoteUser string // %r
	LocalUser  string // %u
	LocalHome  string // %d
}

// ExpandPath applies ~ and % tokens to a path setting such as IdentityFile.
func ExpandPath(p string, t Tokens) string {
	return expandTilde(ExpandTokens(p, t), t.LocalHome)
}

// ExpandTokens substitutes %h %n %p %r %u %d and %%; an unknown token is
// kept literally.
func ExpandTokens(s string, t Tokens) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case '%':
			b.WriteByte('%')
		case 'h':
			b.WriteString(t.Host)
		case 'n':
			b.WriteString(t.Alias)
		case 'p':
			b.WriteString(strconv.Itoa(t.Port))
		case 'r':
			b.WriteString(t.RemoteUser)
		case 'u':
			b.WriteString(t.LocalUser)
		case 'd':
			b.WriteString(t.LocalHome)
		default:
			b.WriteByte('%')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func expandTilde(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}
