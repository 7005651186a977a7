package client

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/dvvhq/dvv/pkg/sock"
)

// ShellSession is the session key the dvv CLI attaches with, so that the
// commands of one terminal, script or agent share one attachment (and its
// lease): $DVV_SESSION when set, else "pid:<pid>:<its start time>" of the
// process the session follows (SessionProcess), which dvvd uses to end the
// attachment when that process exits.
func ShellSession() string {
	if s := os.Getenv("DVV_SESSION"); s != "" {
		return s
	}
	pid := SessionProcess()
	return fmt.Sprintf("pid:%d:%s", pid, ProcessStart(pid))
}

// SessionProcess is the process a CLI session follows: one that outlives
// the per-command shells an agent's Bash tool, make or CI start for every
// command, so that `bash -c "dvv control acquire L"` and the next
// `bash -c "dvv click L …"` share the lease.
//
// With a controlling terminal it is the terminal's session leader (the
// shell the terminal started): every command typed there, `bash -c`, make
// and subshells included, shares it. Without one it is the nearest
// ancestor that is not a shell or a wrapper (sh, bash, make, env,
// timeout…): the agent or CI runner that starts those shells.
func SessionProcess() int {
	self := os.Getpid()
	if hasTerminal() {
		if sid, err := unix.Getsid(0); err == nil && sid > 1 && sid != self {
			return sid
		}
	}
	return outerProcess(os.Getppid())
}

// hasTerminal reports a controlling terminal: /dev/tty opens only then.
func hasTerminal() bool {
	f, err := os.OpenFile("/dev/tty", os.O_RDONLY|unix.O_NOCTTY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// wrappers are the programs a command runs under for one command only:
// shells and the tools that start a command and wait for it.
var wrappers = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "mksh": true,
	"tcsh": true, "csh": true, "busybox": true, "make": true, "gmake": true, "env": true,
	"timeout": true, "nohup": true, "xargs": true, "nice": true, "ionice": true, "stdbuf": true,
	"time": true, "flock": true, "setsid": true, "watch": true,
}

// outerProcess walks up from pid past shells and wrappers, to the first
// process that is neither (or the last one below init, whose session would
// never end, when every ancestor is a wrapper). Where the system gives no
// parent (no /proc), it is pid itself, the parent shell.
func outerProcess(pid int) int {
	for hops := 0; hops < 64; hops++ {
		p, ok := sock.ProcessInfo(pid)
		if !ok || !wrappers[strings.TrimPrefix(p.Comm, "-")] || p.PPID <= 1 {
			return pid
		}
		pid = p.PPID
	}
	return pid
}

// ProcessStart is sock.ProcessStart: a process's start time, "" where
// unknown.
func ProcessStart(pid int) string { return sock.ProcessStart(pid) }

// ShellName is the attachment name a CLI session shows as the holder of a
// lease (in the viewer, the overlay, LEASE errors): the session's own name
// when it was given one ($DVV_SESSION, dvv --session), else the process it
// follows, "bash[4242] on pts/3" or "node[777]".
func ShellName(session string) string {
	if session == "" {
		return "shell"
	}
	if !strings.HasPrefix(session, "pid:") {
		return session
	}
	f := strings.Split(session, ":")
	if len(f) != 3 {
		return "shell"
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		return "shell"
	}
	p, ok := sock.ProcessInfo(pid)
	if !ok {
		return fmt.Sprintf("process %d", pid)
	}
	name := fmt.Sprintf("%s[%d]", p.Comm, pid)
	if p.TTY != "" {
		name += " on " + p.TTY
	}
	return name
}
