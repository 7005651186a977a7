package hosts

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Limits on what is read from ssh configuration: the files are the user's
// own, but a runaway Include or a huge file must not stall `dvv hosts`.
const (
	maxSSHConfigBytes = 1 << 20
	maxSSHIncludes    = 16 // files, across nesting
	maxSSHIncludeNest = 4
	maxSSHHosts       = 1000
)

// DefaultSSHConfigPath is ~/.ssh/config.
func DefaultSSHConfigPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".ssh", "config")
}

// SSHConfigHosts lists the Host entries of an ssh client configuration
// that name one machine (no wildcards or negations), as ssh hosts with ID
// "ssh-" + alias. HostName, Port and User are resolved as ssh does: the
// first value from any block whose patterns match the alias wins, so a
// trailing "Host *" gives defaults. Match blocks are skipped: their
// conditions need a connection to evaluate. A missing or unreadable file
// gives no hosts.
func SSHConfigHosts(path string) []Host {
	if path == "" {
		path = DefaultSSHConfigPath()
	}
	p := &sshParser{baseDir: filepath.Dir(path)}
	p.readFile(path, 0)
	return p.hosts()
}

// ParseSSHConfig is SSHConfigHosts on text already read (no Include).
func ParseSSHConfig(text string) []Host {
	p := &sshParser{noInclude: true}
	p.parse(text, 0)
	return p.hosts()
}

type sshBlock struct {
	patterns []string // nil: applies to every host (settings before any Host line)
	match    bool     // a Match block: never applied
	settings [][2]string
}

type sshParser struct {
	baseDir   string
	noInclude bool
	included  int
	blocks    []*sshBlock
}

func (p *sshParser) current() *sshBlock {
	if len(p.blocks) == 0 {
		p.blocks = append(p.blocks, &sshBlock{})
	}
	return p.blocks[len(p.blocks)-1]
}

func (p *sshParser) readFile(path string, depth int) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	buf, _ := io.ReadAll(io.LimitReader(f, maxSSHConfigBytes))
	p.parse(string(buf), depth)
}

func (p *sshParser) parse(text string, depth int) {
	for _, line := range strings.Split(text, "\n") {
		key, args := splitSSHLine(line)
		if key == "" {
			continue
		}
		switch key {
		case "host":
			p.blocks = append(p.blocks, &sshBlock{patterns: args})
		case "match":
			p.blocks = append(p.blocks, &sshBlock{match: true})
		case "include":
			p.include(args, depth)
		case "hostname", "port", "user":
			if len(args) > 0 {
				b := p.current()
				b.settings = append(b.settings, [2]string{key, args[0]})
			}
		}
	}
}

func (p *sshParser) include(args []string, depth int) {
	if p.noInclude || depth >= maxSSHIncludeNest {
		return
	}
	for _, a := range args {
		if strings.HasPrefix(a, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				a = filepath.Join(home, a[2:])
			}
		} else if !filepath.IsAbs(a) {
			a = filepath.Join(p.baseDir, a)
		}
		matches, _ := filepath.Glob(a)
		for _, m := range matches {
			if p.included >= maxSSHIncludes {
				return
			}
			p.included++
			p.readFile(m, depth+1)
		}
	}
}

// splitSSHLine returns a line's lower-cased keyword and its arguments
// ("Key value", "Key=value", double-quoted arguments, # comments).
func splitSSHLine(line string) (string, []string) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", nil
	}
	end := strings.IndexFunc(line, func(r rune) bool { return unicode.IsSpace(r) || r == '=' })
	if end < 0 {
		return strings.ToLower(line), nil
	}
	key := strings.ToLower(line[:end])
	rest := strings.TrimLeftFunc(line[end:], unicode.IsSpace)
	if strings.HasPrefix(rest, "=") {
		rest = rest[1:]
	}
	var args []string
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" || rest[0] == '#' {
			break
		}
		if rest[0] == '"' {
			closing := strings.IndexByte(rest[1:], '"')
			if closing < 0 {
				args = append(args, rest[1:])
				break
			}
			args = append(args, rest[1:1+closing])
			rest = rest[2+closing:]
			continue
		}
		sp := strings.IndexFunc(rest, unicode.IsSpace)
		if sp < 0 {
			args = append(args, rest)
			break
		}
		args = append(args, rest[:sp])
		rest = rest[sp:]
	}
	return key, args
}

func (p *sshParser) hosts() []Host {
	var aliases []string
	seen := map[string]bool{}
	for _, b := range p.blocks {
		for _, pat := range b.patterns {
			if pat == "" || seen[pat] || strings.ContainsAny(pat, "*?!%") || hasControl(pat) || len(pat) > 255 {
				continue
			}
			seen[pat] = true
			aliases = append(aliases, pat)
		}
	}
	if len(aliases) > maxSSHHosts {
		aliases = aliases[:maxSSHHosts]
	}
	out := make([]Host, 0, len(aliases))
	for _, alias := range aliases {
		h := Host{ID: "ssh-" + alias, Name: alias, Protocol: wire.ProtoSSH, Source: SourceSSHConfig}
		for _, b := range p.blocks {
			if b.match || (b.patterns != nil && !matchesHost(b.patterns, alias)) {
				continue
			}
			for _, kv := range b.settings {
				switch kv[0] {
				case "hostname":
					if h.Address == "" {
						h.Address = strings.ReplaceAll(kv[1], "%h", alias)
					}
				case "port":
					if n, err := strconv.Atoi(kv[1]); err == nil && h.Port == 0 && n > 0 && n < 65536 {
						h.Port = n
					}
				case "user":
					if h.User == "" {
						h.User = kv[1]
					}
				}
			}
		}
		if h.Address == "" {
			h.Address = alias
		}
		if h.Port == 0 {
			h.Port = 22
		}
		out = append(out, h)
	}
	return out
}

// matchesHost applies one Host line: some positive pattern matches and no
// negated one does.
func matchesHost(patterns []string, host string) bool {
	matched := false
	for _, pat := range patterns {
		if strings.HasPrefix(pat, "!") {
			if wildMatch(pat[1:], host) {
				return false
			}
			continue
		}
		if wildMatch(pat, host) {
			matched = true
		}
	}
	return matched
}

// wildMatch matches ssh's patterns: * any run, ? any one character,
// case-insensitively. Iterative with one backtrack point, so it runs in
// O(len(pattern)*len(s)) whatever the input.
func wildMatch(pattern, s string) bool {
	pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(pattern) && (pattern[pi] == '?' || pattern[pi] == s[si]):
			pi++
			si++
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}
