// Command gendocs writes the error-code table of docs/protocol.md from
// pkg/wire's closed set of codes, between the codes:begin/end markers.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

const (
	begin = "<!-- codes:begin -->"
	end   = "<!-- codes:end -->"
)

// Table renders the codes as Markdown.
func Table() string {
	var b strings.Builder
	b.WriteString("| code | meaning | right move | dvv exit |\n| --- | --- | --- | --- |\n")
	for _, c := range wire.Codes {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d |\n", c.Code, c.Meaning, c.Next, c.Exit)
	}
	return b.String()
}

// Render replaces the marked section of doc with the current table.
func Render(doc string) (string, error) {
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("markers %s … %s not found", begin, end)
	}
	return doc[:i+len(begin)] + "\n" + Table() + doc[j:], nil
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
