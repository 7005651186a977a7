package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Human output carries text dvv did not write: a server's failure reason
// and desktop name, a session name or lease reason another client chose, a
// remote file name, a window title. Printed raw, an escape sequence in it
// would retitle or clear the owner's terminal and draw a fake prompt. So
// the human streams (env.stdout, env.stderr) escape every control
// character the way ls and git show odd names (ESC as \x1b), except the
// newline and tab that lay out dvv's own lines; a table cell or an error
// message escapes those too (oneLine), as it is one line by construction.
// Commands whose output is data (run, term read, files get to stdout,
// clipboard get, screen to stdout, stdio-proxy, --json) write to
// env.rawOut / env.rawErr byte for byte, as cat and ssh do.

// escapeWriter escapes control characters in what passes through it.
type escapeWriter struct {
	w io.Writer
	// keepLayout passes \n and \t through (a stream of lines); otherwise
	// they are escaped too.
	keepLayout bool
}

func (x *escapeWriter) Write(p []byte) (int, error) {
	s := string(p)
	if !needsEscape(s, x.keepLayout) {
		return x.w.Write(p)
	}
	if _, err := io.WriteString(x.w, escapeText(s, x.keepLayout)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// underlying is the stream an escapeWriter writes to (w itself otherwise),
// for telling whether it is a terminal.
func underlying(w io.Writer) io.Writer {
	if x, ok := w.(*escapeWriter); ok {
		return x.w
	}
	return w
}

// needsEscape reports whether s holds anything escapeText changes.
func needsEscape(s string, keepLayout bool) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x20 || b == 0x7f {
			if keepLayout && (b == '\n' || b == '\t') {
				continue
			}
			return true
		}
		if b >= 0x80 {
			return escapeText(s[i:], keepLayout) != s[i:]
		}
	}
	return false
}

// escapeText shows the C0 and C1 control characters, DEL and bytes that
// are not UTF-8 in s as escapes (\n, \r, \t, \x1b, \u009b), so a terminal
// prints them instead of obeying them. A backslash is left as it is: the
// output is for a person, not for parsing (that is --json).
func escapeText(s string, keepLayout bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case (r == '\n' || r == '\t') && keepLayout:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// oneLine is foreign text made safe for one line of output: every control
// character, newline and tab included, escaped.
func oneLine(s string) string {
	if !needsEscape(s, false) {
		return s
	}
	return escapeText(s, false)
}

// humanStreams wraps the process's streams: what commands print for a
// person goes through an escapeWriter; the raw streams stay for data.
func (e *env) humanStreams(stdout, stderr io.Writer) {
	e.rawOut, e.rawErr = stdout, stderr
	e.stdout = &escapeWriter{w: stdout, keepLayout: true}
	e.stderr = &escapeWriter{w: stderr, keepLayout: true}
}

// dataOut is where a command writes data (remote output, file content,
// an image, JSON): stdout as it is.
func (e *env) dataOut() io.Writer {
	if e.rawOut != nil {
		return e.rawOut
	}
	return e.stdout
}

// dataErr is stderr as it is: a remote command's stderr, and the
// spinner's and progress bar's own redrawing.
func (e *env) dataErr() io.Writer {
	if e.rawErr != nil {
		return e.rawErr
	}
	return e.stderr
}

// jsonSafe writes DEL and the C1 controls (U+0080–U+009F) in a JSON line
// as \u escapes. encoding/json and dvvd escape C0 controls already but
// leave these as raw bytes, which some terminals obey (0x9b is CSI); the
// escape means the same string, so --json stays exactly dvvd's answer.
func jsonSafe(line []byte) []byte {
	i := 0
	for ; i < len(line); i++ {
		if b := line[i]; b == 0x7f || (b == 0xc2 && i+1 < len(line) && line[i+1] >= 0x80 && line[i+1] < 0xa0) {
			break
		}
	}
	if i == len(line) {
		return line
	}
	out := append([]byte{}, line[:i]...)
	for ; i < len(line); i++ {
		switch b := line[i]; {
		case b == 0x7f:
			out = append(out, `\u007f`...)
		case b == 0xc2 && i+1 < len(line) && line[i+1] >= 0x80 && line[i+1] < 0xa0:
			out = fmt.Appendf(out, `\u%04x`, line[i+1])
			i++
		default:
			out = append(out, b)
		}
	}
	return out
}
