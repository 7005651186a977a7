//go:build linux || darwin

package cli

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether w is a terminal (not a pipe or a file); the
// human streams (escapeWriter) answer for the stream they write to.
func isTerminal(w io.Writer) bool {
	f, ok := underlying(w).(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return err == nil
}

// termWidth is the terminal's width in columns (80 when it cannot tell).
func termWidth(w io.Writer) int {
	if f, ok := underlying(w).(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 80
}
