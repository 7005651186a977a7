// Command gendocs writes the generated parts of docs/protocol.md from
// pkg/wire: the op table (from wire.Ops, the table dvvd, policy and the MCP
// bridge run on) and the error-code table (from wire.Codes), each between
// its begin/end markers.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

type section struct {
	begin, end string
	render     func() string
}

var sections = []section{
	{"<!-- ops:begin -->", "<!-- ops:end -->", OpsTable},
	{"<!-- codes:begin -->", "<!-- codes:end -->", Table},
}

// Table renders the codes as Markdown.
func Table() string {
	var b strings.Builder
	b.WriteString("| code | meaning | right move | dvv exit |\n| --- | --- | --- | --- |\n")
	for _, c := range wire.Codes {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d |\n", c.Code, c.Meaning, c.Next, c.Exit)
	}
	return b.String()
}

// OpsTable renders wire.Ops as Markdown: fields (with the variants they
// apply to and their bounds), the capabilities needed, the answer's fields
// (the op's answer type) and what the answer means.
func OpsTable() string {
	var b strings.Builder
	b.WriteString("| op | fields | needs | answers | answer |\n| --- | --- | --- | --- | --- |\n")
	for i := range wire.Ops() {
		s := &wire.Ops()[i]
		fmt.Fprintf(&b, "| `%s`%s | %s | %s | %s | %s |\n", s.Name, opMarks(s), fields(s), needs(s), answerFields(s), s.Answer)
	}
	return b.String()
}

// answerFields lists the fields a success may carry beside result and id.
func answerFields(s *wire.OpSpec) string {
	names := s.AnswerFields()
	if len(names) == 0 {
		return "—"
	}
	for i, n := range names {
		names[i] = "`" + n + "`"
	}
	return strings.Join(names, ", ")
}

// opMarks flags inline (answered from memory, in read order), read-only
// and kind-bound ops.
func opMarks(s *wire.OpSpec) string {
	var m []string
	if s.Kind != "" {
		m = append(m, s.Kind+" limbs only")
	}
	if s.Inline {
		m = append(m, "inline")
	}
	if s.ReadOnly {
		m = append(m, "read-only")
	}
	if len(m) == 0 {
		return ""
	}
	return " (" + strings.Join(m, ", ") + ")"
}

func fields(s *wire.OpSpec) string {
	var out []string
	if s.Limb {
		out = append(out, "selector")
	}
	for i := range s.Fields {
		f := &s.Fields[i]
		if s.Limb && (f.Name == "limbId" || f.Name == "groupId" || f.Name == "member") {
			continue
		}
		d := "`" + f.Name + "`"
		if f.Name == s.Variant {
			vs := make([]string, len(s.Variants))
			for i, v := range s.Variants {
				vs[i] = v
				if k := s.VariantKinds[v]; k != "" {
					vs[i] += " (" + k + " limbs only)"
				}
			}
			d += " " + strings.Join(vs, "/")
		}
		if len(f.Values) > 0 {
			d += " " + strings.Join(f.Values, "/")
		}
		var q []string
		if len(f.Only) > 0 {
			q = append(q, strings.Join(f.Only, "/")+" only")
		}
		switch {
		case f.Required && len(f.RequiredIn) > 0:
			q = append(q, "required for "+strings.Join(f.RequiredIn, "/"))
		case f.Required:
			q = append(q, "required")
		}
		switch {
		case f.Min != nil && f.Max != nil:
			q = append(q, fmt.Sprintf("%d..%d", *f.Min, *f.Max))
		case f.Min != nil:
			q = append(q, fmt.Sprintf("≥ %d", *f.Min))
		}
		if f.Text > 0 {
			q = append(q, fmt.Sprintf("printable, ≤ %d bytes", f.Text))
		}
		if f.Note != "" {
			q = append(q, f.Note)
		}
		if len(q) > 0 {
			d += " (" + strings.Join(q, "; ") + ")"
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return "—"
	}
	return strings.Join(out, ", ")
}

func needs(s *wire.OpSpec) string {
	if s.Name == wire.OpGroupRun {
		return "what its action needs"
	}
	if s.ActionCaps != nil {
		var parts []string
		for _, v := range s.Variants {
			c := s.ActionCaps[v]
			if len(c) == 0 {
				parts = append(parts, v+": —")
			} else {
				parts = append(parts, v+": `"+strings.Join(c, "`, `")+"`")
			}
		}
		return strings.Join(parts, "; ")
	}
	if len(s.Caps) == 0 {
		return "—"
	}
	return "`" + strings.Join(s.Caps, "`, `") + "`"
}

// Render replaces every marked section of doc with its current table.
func Render(doc string) (string, error) {
	for _, sec := range sections {
		i, j := strings.Index(doc, sec.begin), strings.Index(doc, sec.end)
		if i < 0 || j < i {
			return "", fmt.Errorf("markers %s … %s not found", sec.begin, sec.end)
		}
		doc = doc[:i+len(sec.begin)] + "\n" + sec.render() + doc[j:]
	}
	return doc, nil
}

func main() {
	path := "docs/protocol.md"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := Render(string(b))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
