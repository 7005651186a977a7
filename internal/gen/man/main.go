// Command genman writes dvv's man pages (section 1, one per command) into
// the directory named by its argument. dvvd and dvvmcp write their own page
// with their hidden --gen-man flag; `make package` runs all three.
package main

import (
	"fmt"
	"os"

	"github.com/dvvhq/dvv/pkg/cli"
	"github.com/dvvhq/dvv/pkg/manpage"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genman DIR")
		os.Exit(2)
	}
	if err := Write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "genman:", err)
		os.Exit(1)
	}
}

// Write generates dvv.1 and dvv-<command>.1 pages into dir.
func Write(dir string) error {
	h := manpage.Header{Source: "dvv " + cli.Version, Manual: "dvv manual", SeeAlso: []string{"dvvd(1)", "dvvmcp(1)"}}
	for _, s := range cli.ManSections() {
		h.Sections = append(h.Sections, manpage.Section{Title: s.Title, Text: s.Text})
	}
	return manpage.WriteTree(cli.Command(), h, dir)
}
