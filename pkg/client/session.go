package client

import (
	"fmt"
	"os"
	"strings"
)

// ShellSession is the session key the dvv CLI attaches with, so that the
// commands typed in one shell share one attachment (and its lease):
// $DVV_SESSION when set, else "pid:<parent pid>:<its start time>", which
// dvvd uses to end the attachment when that shell exits.
func ShellSession() string {
	if s := os.Getenv("DVV_SESSION"); s != "" {
		return s
	}
	ppid := os.Getppid()
	return fmt.Sprintf("pid:%d:%s", ppid, ProcessStart(ppid))
}

// ProcessStart is a process's start time in clock ticks since boot (Linux
// /proc), "" where unknown. It tells a shell from a later process that
// reuses its pid.
func ProcessStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
