package client

import (
	"fmt"
	"os"

	"github.com/dvvhq/dvv/pkg/sock"
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

// ProcessStart is sock.ProcessStart: a process's start time, "" where
// unknown.
func ProcessStart(pid int) string { return sock.ProcessStart(pid) }
