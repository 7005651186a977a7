//go:build !linux && !darwin

package cli

import "io"

// isTerminal is false where terminals cannot be told apart: no spinner.
func isTerminal(io.Writer) bool { return false }

// termWidth is the usual width where it cannot be read.
func termWidth(io.Writer) int { return 80 }
