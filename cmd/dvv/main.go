// Command dvv is the command-line client of dvvd: one sub-command per
// operation, human output by default, --json for scripts, and a distinct
// exit status per error class. See docs/cli.md.
package main

import (
	"context"
	"os"

	"github.com/dvvhq/dvv/pkg/cli"
)

func main() {
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
