package cli

import (
	"github.com/spf13/cobra"
)

// Command is dvv's whole command tree, detached from any stream or socket:
// man pages and shell completions are generated from it at build time.
func Command() *cobra.Command {
	return newRoot(&env{getenv: func(string) string { return "" }})
}
