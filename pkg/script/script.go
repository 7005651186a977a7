// Package script reads dvv scripts: one step a line, written as dvv's own
// commands without "dvv" (and without the limb when the runner is given
// one), with '#' comments, shell-like quoting and ${name} variables; and
// vncdotool's verbs, translated to the dvv steps that mean the same. It
// only reads: pkg/cli runs the steps (docs/scripts.md).
package script

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxLine is the longest line a script may have: a line is one step, and
// a longer one is a mistake (a binary file, a missing newline).
const MaxLine = 64 << 10

// MaxSteps is the most steps one script may hold.
const MaxSteps = 10000

// Step is one step of a script.
type Step struct {
	Line int      // the step's line in the script, from 1
	Text string   // the line as written, without its comment, for reports
	Args []string // the command's words, variables substituted
	// Vncdo is the vncdotool verb the step was translated from ("" for a
	// step written as dvv's own).
	Vncdo string
}

// Verb is the step's command: its first word.
func (s Step) Verb() string {
	if len(s.Args) == 0 {
		return ""
	}
	return s.Args[0]
}

// Error is a mistake in a script, at a line.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

func errAt(line int, format string, args ...any) *Error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// varName is what a variable may be called.
var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidName reports whether name may be a variable's name.
func ValidName(name string) bool { return varName.MatchString(name) }

// Parse reads a whole script. vars are the values of ${name}; a variable
// the script uses and vars lack is refused, naming its line (a script
// never types an empty string where a value was meant). vncdotool's verbs
// are translated (see Translate).
func Parse(src string, vars map[string]string) ([]Step, error) {
	var steps []Step
	tr := &Translator{}
	for i, line := range strings.Split(src, "\n") {
		n := i + 1
		if len(line) > MaxLine {
			return nil, errAt(n, "the line is longer than %d bytes", MaxLine)
		}
		line = strings.TrimSuffix(line, "\r")
		words, err := Split(line, vars)
		if err != nil {
			return nil, errAt(n, "%v", err)
		}
		if len(words) == 0 {
			continue
		}
		text := strings.TrimSpace(stripComment(line))
		out, err := tr.Step(Step{Line: n, Text: text, Args: words})
		if err != nil {
			return nil, err
		}
		steps = append(steps, out...)
		if len(steps) > MaxSteps {
			return nil, errAt(n, "more than %d steps", MaxSteps)
		}
	}
	if err := tr.End(); err != nil {
		return nil, err
	}
	return steps, nil
}

// stripComment is line without a trailing comment (a '#' starting a word,
// outside quotes).
func stripComment(line string) string {
	var quote rune
	prevSpace := true
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && prevSpace:
			return line[:i]
		}
		prevSpace = r == ' ' || r == '\t'
	}
	return line
}

// Split cuts one line into words the way a shell would for these cases:
// blanks separate words, '…' quotes literally, "…" quotes with \" \\ \$
// escapes and ${name} substituted, a backslash outside quotes escapes the
// next character, and '#' at the start of a word begins a comment.
// ${name} is substituted outside single quotes; "$$" is a literal '$'.
func Split(line string, vars map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words, nil
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("a ' is not closed")
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				switch {
				case rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune(`"\$`, rs[j+1]):
					j++
					cur.WriteRune(rs[j])
				case rs[j] == '$':
					n, err := dollar(rs, j, vars, &cur)
					if err != nil {
						return nil, err
					}
					j = n
				default:
					cur.WriteRune(rs[j])
				}
			}
			if j == len(rs) {
				return nil, fmt.Errorf(`a " is not closed`)
			}
			i = j
		case r == '\\':
			inWord = true
			if i+1 == len(rs) {
				return nil, fmt.Errorf("the line ends in a backslash (a step is one line)")
			}
			i++
			cur.WriteRune(rs[i])
		case r == '$':
			inWord = true
			n, err := dollar(rs, i, vars, &cur)
			if err != nil {
				return nil, err
			}
			i = n
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// dollar writes what the '$' at rs[i] stands for and answers the index of
// its last rune: ${name}'s value, '$' for "$$", else the '$' itself.
func dollar(rs []rune, i int, vars map[string]string, out *strings.Builder) (int, error) {
	if i+1 < len(rs) && rs[i+1] == '$' {
		out.WriteRune('$')
		return i + 1, nil
	}
	if i+1 >= len(rs) || rs[i+1] != '{' {
		out.WriteRune('$')
		return i, nil
	}
	end := -1
	for j := i + 2; j < len(rs); j++ {
		if rs[j] == '}' {
			end = j
			break
		}
	}
	if end < 0 {
		return 0, fmt.Errorf("a ${ is not closed with }")
	}
	name := string(rs[i+2 : end])
	if !ValidName(name) {
		return 0, fmt.Errorf("${%s}: a variable's name is letters, digits and _", name)
	}
	v, ok := vars[name]
	if !ok {
		return 0, fmt.Errorf("${%s} has no value: give it with --var %s=VALUE", name, name)
	}
	out.WriteString(v)
	return end, nil
}

// ParseVar reads a --var name=value.
func ParseVar(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok || !ValidName(name) {
		return "", "", fmt.Errorf("--var %q: write it as name=value, the name letters, digits and _", s)
	}
	return name, value, nil
}
