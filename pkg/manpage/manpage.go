// Package manpage writes section-1 man pages (troff, the man macros) for a
// cobra command tree: one page per visible command, with its positional
// arguments in SYNOPSIS, its flags, examples, and the sections a program
// adds (EXIT STATUS, ENVIRONMENT, FILES).
//
// It writes troff directly instead of going through markdown, where text
// such as <limbId> or /tmp/dvv<uid> is taken for an HTML tag and dropped.
package manpage

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Section is one extra section of a page. Text is plain text: paragraphs
// are separated by a blank line, a line indented by two spaces or more is
// shown as is, `code` is set in bold, and a paragraph whose lines each
// hold a tab is a list of "term<TAB>meaning" entries.
type Section struct {
	Title string
	Text  string
}

// Header is what every page of a tree shares.
type Header struct {
	Source string // program and version, e.g. "dvv 1.2.0" (page footer)
	Manual string // e.g. "dvv manual" (page header)
	// Sections follow OPTIONS and EXAMPLES on every page.
	Sections []Section
	// SeeAlso names pages outside the tree, e.g. "dvvd(1)", on the root page.
	SeeAlso []string
}

// WriteTree writes <command-path-with-dashes>.1 for root and each visible
// command under it into dir.
func WriteTree(root *cobra.Command, h Header, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(Page(c, h)), 0o644); err != nil {
			return err
		}
		for _, sub := range visible(c) {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root)
}

func visible(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			out = append(out, sub)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Page is the man page of one command.
func Page(c *cobra.Command, h Header) string {
	c.InitDefaultHelpFlag()
	var b strings.Builder
	dashed := strings.ReplaceAll(c.CommandPath(), " ", "-")
	fmt.Fprintf(&b, ".TH %s 1 %s %s %s\n", quote(strings.ToUpper(dashed)), quote(date()), quote(h.Source), quote(h.Manual))
	// No hyphenation, ragged right: paths and flags stay whole, so they can
	// be searched for and copied.
	b.WriteString(".nh\n.ad l\n")
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", escape(dashed), escape(c.Short))

	b.WriteString(".SH SYNOPSIS\n")
	b.WriteString(synopsis(c))

	b.WriteString(".SH DESCRIPTION\n")
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	b.WriteString(text(desc))
	if subs := visible(c); len(subs) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, s := range subs {
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", escape(s.Name()), escape(s.Short))
		}
	}

	flags(&b, "OPTIONS", c.NonInheritedFlags())
	flags(&b, "GLOBAL OPTIONS", c.InheritedFlags())
	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n.RS\n.nf\n")
		for _, l := range strings.Split(strings.Trim(c.Example, "\n"), "\n") {
			b.WriteString(line(strings.TrimPrefix(l, "  ")) + "\n")
		}
		b.WriteString(".fi\n.RE\n")
	}
	for _, s := range h.Sections {
		fmt.Fprintf(&b, ".SH %s\n", quote(strings.ToUpper(s.Title)))
		b.WriteString(text(s.Text))
	}
	seeAlso(&b, c, h)
	return b.String()
}

// synopsis is the command path in bold, then its arguments as Use states
// them (<name> in italics), then [flags] when it has any.
func synopsis(c *cobra.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".B %s\n", escape(c.CommandPath()))
	args := ""
	if i := strings.IndexByte(c.Use, ' '); i > 0 {
		args = strings.TrimSpace(c.Use[i+1:])
	}
	if args == "" && len(visible(c)) > 0 {
		args = "<command>"
	}
	if c.HasAvailableFlags() && !strings.Contains(args, "[flags]") {
		args = strings.TrimSpace("[flags] " + args)
	}
	if args != "" {
		b.WriteString(placeholders(escape(args)) + "\n")
	}
	return b.String()
}

var placeholder = regexp.MustCompile(`<([^<>]+)>`)

// placeholders sets <name> in italics, keeping the angle brackets.
func placeholders(s string) string {
	return placeholder.ReplaceAllString(s, `<\fI$1\fR>`)
}

func flags(b *strings.Builder, title string, fs *pflag.FlagSet) {
	if !fs.HasAvailableFlags() {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", quote(title))
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		varname, usage := pflag.UnquoteUsage(f)
		if f.Value.Type() == "bool" {
			// A switch takes no value; a `quoted` word in its usage is code.
			varname, usage = "", f.Usage
		}
		b.WriteString(".TP\n")
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			fmt.Fprintf(b, "\\fB\\-%s\\fR, ", escape(f.Shorthand))
		}
		fmt.Fprintf(b, "\\fB\\-\\-%s\\fR", escape(f.Name))
		if varname != "" {
			if f.NoOptDefVal != "" {
				fmt.Fprintf(b, "[=\\fI%s\\fR]", escape(varname))
			} else {
				fmt.Fprintf(b, " \\fI%s\\fR", escape(varname))
			}
		}
		b.WriteString("\n")
		if !zeroDefault(f) {
			usage += " (default " + defaultText(f) + ")"
		}
		b.WriteString(paragraphText(usage) + "\n")
	})
}

func zeroDefault(f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "[]", "0s", "<nil>":
		return true
	}
	return false
}

func defaultText(f *pflag.Flag) string {
	if f.Value.Type() == "string" {
		return strconv.Quote(f.DefValue)
	}
	return f.DefValue
}

func seeAlso(b *strings.Builder, c *cobra.Command, h Header) {
	var refs []string
	if c.HasParent() {
		refs = append(refs, strings.ReplaceAll(c.Parent().CommandPath(), " ", "-")+"(1)")
	}
	for _, s := range visible(c) {
		refs = append(refs, strings.ReplaceAll(s.CommandPath(), " ", "-")+"(1)")
	}
	if !c.HasParent() {
		refs = append(refs, h.SeeAlso...)
	}
	if len(refs) == 0 {
		return
	}
	b.WriteString(".SH \"SEE ALSO\"\n")
	for i, r := range refs {
		name, sec, _ := strings.Cut(r, "(")
		sep := ","
		if i == len(refs)-1 {
			sep = ""
		}
		fmt.Fprintf(b, ".BR %s (%s%s\n", escape(name), sec, sep)
	}
}

// text renders plain text: paragraphs, literal lines, "term<TAB>meaning" lists.
func text(s string) string {
	var b strings.Builder
	for i, para := range strings.Split(strings.Trim(s, "\n"), "\n\n") {
		lines := strings.Split(strings.Trim(para, "\n"), "\n")
		if i > 0 {
			b.WriteString(".PP\n")
		}
		switch {
		case allTabbed(lines):
			for _, l := range lines {
				term, meaning, _ := strings.Cut(l, "\t")
				fmt.Fprintf(&b, ".TP\n%s\n%s\n", paragraphText(term), paragraphText(meaning))
			}
		default:
			literal := false
			for _, l := range lines {
				indented := strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "\t")
				if indented != literal {
					if indented {
						b.WriteString(".RS\n.nf\n")
					} else {
						b.WriteString(".fi\n.RE\n")
					}
					literal = indented
				}
				if indented {
					b.WriteString(line(strings.TrimLeft(l, " \t")) + "\n")
				} else {
					b.WriteString(paragraphText(l) + "\n")
				}
			}
			if literal {
				b.WriteString(".fi\n.RE\n")
			}
		}
	}
	return b.String()
}

func allTabbed(lines []string) bool {
	for _, l := range lines {
		if !strings.Contains(l, "\t") || strings.HasPrefix(l, "\t") {
			return false
		}
	}
	return true
}

var code = regexp.MustCompile("`([^`]+)`")

// paragraphText is one line of running text: escaped, `code` in bold.
func paragraphText(s string) string {
	return line(code.ReplaceAllStringFunc(s, func(m string) string {
		return "\x00B" + m[1:len(m)-1] + "\x00R"
	}))
}

// line escapes s as one troff text line (a leading . or ' would be a request).
func line(s string) string {
	s = escape(s)
	s = strings.NewReplacer("\x00B", `\fB`, "\x00R", `\fR`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// escape makes s literal troff text: a backslash is \e, every - is \-
// (an ASCII hyphen-minus on every device, so options copy and paste), and
// every non-ASCII character is named (\[u2014]): groff reads bytes as
// Latin-1 unless run through preconv, which man does and groff alone not.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(escape(s), `"`, `\(dq`) + `"`
}

// date is the page date: SOURCE_DATE_EPOCH's when set (reproducible
// packages), else today.
func date() string {
	t := time.Now()
	if e, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		t = time.Unix(e, 0)
	}
	return t.UTC().Format("2006-01-02")
}
