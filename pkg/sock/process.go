package sock

import "strings"

// Process is what dvv reads of another process to name and follow a shell
// session: its parent, its command name and its controlling terminal.
type Process struct {
	PID  int
	PPID int
	Comm string // the command name as the kernel keeps it (at most 15 or 16 bytes)
	TTY  string // the controlling terminal ("pts/3"), "" when none or unknown
}

// ProcessInfo reads a process's parent, command name and terminal (Linux
// /proc, macOS sysctl); false where the process is gone or the system gives
// no way to read it.
func ProcessInfo(pid int) (Process, bool) {
	p, ok := processInfo(pid)
	if ok {
		p.Comm = printable(p.Comm)
	}
	return p, ok
}

// printable keeps a command name to printable ASCII: it is shown as a lease
// holder's name, and a process can name itself anything.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x21 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}
