// Package sshconfig reads OpenSSH client configuration (ssh_config(5)): the
// settings of one host, the aliases it names, and the % tokens and ~ paths
// of its values. It is the one reader of ~/.ssh/config in dvv (pkg/sshx
// connects with it, pkg/hosts lists its aliases) and uses the standard
// library only, so the dvv CLI can list hosts without linking an SSH client.
package sshconfig

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// Config is a parsed ssh_config(5) file: an ordered list of Host blocks.
// Only the keywords dvv acts on are kept; the rest are skipped, as OpenSSH
// would skip keywords it applies elsewhere. It is the one reader of ssh
// configuration in dvv: connections resolve a host with Lookup, and the
// saved-hosts list names the aliases with Aliases.
type Config struct {
	blocks []hostBlock
	budget configBudget
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

// Limits on what one configuration (a file and everything it includes)
// may make us read and hold: a broken file, an Include loop or a glob that
// fans out must not stall or exhaust dvvd. Going past one is an error that
// says which, as OpenSSH refuses a configuration nested too deep.
const (
	maxConfigLine    = 64 << 10
	maxConfigBytes   = 4 << 20 // all files of one configuration together
	maxIncludeDepth  = 16      // OpenSSH's own nesting limit
	maxIncludeFiles  = 256     // files read through Include, all levels together
	maxConfigBlocks  = 10000
	maxSettingsBlock = 1000
)

// configBudget is what is left of the limits while one configuration is read.
type configBudget struct {
	bytes int64
	files int
}

// Error is a configuration ssh would refuse, at the file and line where
// the problem is (in the innermost included file).
type Error struct {
	File   string // "" for text given to Parse
	Line   int
	Reason string
}

func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	return fmt.Sprintf("%s line %d: %s", e.File, e.Line, e.Reason)
}

func parseNamed(r io.Reader, name, sshDir string) (*Config, error) {
	c := &Config{blocks: []hostBlock{{patterns: []string{"*"}}},
		budget: configBudget{bytes: maxConfigBytes, files: maxIncludeFiles}}
	if err := c.parse(r, name, sshDir, 0); err != nil {
		return nil, err
	}
	return c, nil
}

// Set are the configuration files ssh reads, in its order (the user's,
// then the system's): the first value found for a keyword wins.
type Set []*Config

// LoadAll reads each file with Load.
func LoadAll(files []string, sshDir string) (Set, error) {
	var cs Set
	for _, f := range files {
		c, err := Load(f, sshDir)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// Lookup merges the settings each file gives alias, earlier files first.
func (cs Set) Lookup(alias string) HostSettings {
	var hs HostSettings
	for _, c := range cs {
		mergeSettings(&hs, c.Lookup(alias))
	}
	return hs
}

// mergeSettings fills what dst lacks from src: the first value wins, and
// IdentityFile accumulates.
func mergeSettings(dst *HostSettings, src HostSettings) {
	if dst.HostName == "" {
		dst.HostName = src.HostName
	}
	if dst.User == "" {
		dst.User = src.User
	}
	if dst.Port == 0 {
		dst.Port = src.Port
	}
	dst.IdentityFiles = append(dst.IdentityFiles, src.IdentityFiles...)
	dst.IdentitiesOnly = dst.IdentitiesOnly || src.IdentitiesOnly
	if dst.UserKnownHosts == nil {
		dst.UserKnownHosts = src.UserKnownHosts
	}
	dst.HashKnownHosts = dst.HashKnownHosts || src.HashKnownHosts
	if dst.IdentityAgent == "" {
		dst.IdentityAgent = src.IdentityAgent
	}
	if dst.ConnectTimeoutSecs == 0 {
		dst.ConnectTimeoutSecs = src.ConnectTimeoutSecs
	}
}

// Load reads a configuration file; a missing file is an empty config.
func Load(path, sshDir string) (*Config, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseNamed(f, path, sshDir)
}

// parse reads one file (name is its path, for errors) into c.
func (c *Config) parse(r io.Reader, name, sshDir string, depth int) error {
	sc := bufio.NewScanner(&budgetReader{r: r, left: &c.budget.bytes})
	sc.Buffer(make([]byte, 0, 4096), maxConfigLine)
	lineNo := 0
	fail := func(format string, args ...any) error {
		return &Error{File: name, Line: lineNo, Reason: fmt.Sprintf(format, args...)}
	}
	for sc.Scan() {
		lineNo++
		key, args, err := splitConfigLine(sc.Text())
		if err != nil {
			return fail("%v", err)
		}
		if key == "" {
			continue
		}
		switch key {
		case "host":
			if len(c.blocks) >= maxConfigBlocks {
				return fail("more than %d Host blocks", maxConfigBlocks)
			}
			c.blocks = append(c.blocks, hostBlock{patterns: args})
		case "match":
			// Only "Match all" is evaluated; other criteria (exec, user,
			// canonical…) are outside what dvv applies, so such a block
			// never matches rather than matching wrongly.
			all := len(args) == 1 && strings.EqualFold(args[0], "all")
			c.blocks = append(c.blocks, hostBlock{patterns: []string{"*"}, never: !all})
		case "include":
			if sshDir == "" {
				continue
			}
			if depth >= maxIncludeDepth {
				return fail("Include nested more than %d deep (does a file include itself?)", maxIncludeDepth)
			}
			for _, a := range args {
				var located *Error
				if err := c.include(a, sshDir, depth+1); errors.As(err, &located) {
					return err
				} else if err != nil {
					return fail("%v", err)
				}
			}
		default:
			b := &c.blocks[len(c.blocks)-1]
			if len(b.settings) < maxSettingsBlock {
				b.settings = append(b.settings, setting{key: key, args: args})
			}
		}
	}
	if err := sc.Err(); err != nil {
		lineNo++ // the line that could not be read
		if errors.Is(err, bufio.ErrTooLong) {
			return fail("longer than %d KiB", maxConfigLine>>10)
		}
		return fail("%v", err)
	}
	return nil
}

// errConfigTooLarge ends a read past maxConfigBytes.
var errConfigTooLarge = errors.New("more than " + strconv.Itoa(maxConfigBytes>>20) + " MiB of ssh configuration, Includes counted")

// budgetReader reads until the configuration's shared byte budget is spent.
type budgetReader struct {
	r    io.Reader
	left *int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if *b.left <= 0 {
		return 0, errConfigTooLarge
	}
	if int64(len(p)) > *b.left {
		p = p[:*b.left]
	}
	n, err := b.r.Read(p)
	*b.left -= int64(n)
	return n, err
}

// include merges the files a pattern names, in lexical order as OpenSSH
// does; a pattern naming no file, or a file that cannot be opened, is
// skipped as OpenSSH skips it. An error inside an included file is an error
// of the whole configuration, located in that file.
func (c *Config) include(pattern, sshDir string, depth int) error {
	p := expandTilde(pattern, filepath.Dir(sshDir))
	if !filepath.IsAbs(p) {
		p = filepath.Join(sshDir, p)
	}
	matches, _ := filepath.Glob(p)
	for _, m := range matches {
		if c.budget.files <= 0 {
			//lint:ignore ST1005 Include is the ssh_config keyword as the file spells it, and the message follows "FILE line N: "
			return fmt.Errorf("Include reads more than %d files", maxIncludeFiles)
		}
		f, err := os.Open(m)
		if err != nil {
			continue
		}
		c.budget.files--
		// An included file's settings land in the block that is current
		// where the Include stands, and a Host line inside it starts a new
		// block, exactly as if the text were pasted in.
		err = c.parse(f, m, sshDir, depth)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
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
		if b.never || !MatchHost(b.patterns, alias) {
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

// Aliases lists the names Host lines give to single machines, in the order
// they first appear: patterns with wildcards, negations, tokens or commas
// are not names, and a name its own Host line excludes ("Host a !a") is
// left out. These are what `ssh <alias>` is meant to be typed with.
func (c *Config) Aliases() []string {
	var out []string
	seen := map[string]bool{}
	for i, b := range c.blocks {
		if i == 0 || b.never { // the first block is the implicit "*"
			continue
		}
		for _, p := range b.patterns {
			key := strings.ToLower(p)
			if p == "" || len(p) > 255 || seen[key] || strings.ContainsAny(p, "*?!%,") || hasControl(p) ||
				!MatchHost(b.patterns, p) {
				continue
			}
			seen[key] = true
			out = append(out, p)
		}
	}
	return out
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || unicode.IsSpace(r) {
			return true
		}
	}
	return false
}

func yes(s string) bool { return strings.EqualFold(s, "yes") || strings.EqualFold(s, "true") }

// MatchHost applies a Host line: some pattern matches and no
// negated one does. Matching is case-insensitive, as OpenSSH's.
func MatchHost(patterns []string, host string) bool {
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
