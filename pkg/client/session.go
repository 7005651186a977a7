package client

import (
	"fmt"
	"os"
	"strings"

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

// ShellName is the attachment name a CLI session shows as the holder of a
// lease (in the viewer, the overlay, LEASE errors): the session's own name
// when it was given one ($DVV_SESSION, dvv --session), else "shell".
func ShellName(session string) string {
	if session == "" || strings.HasPrefix(session, "pid:") {
		return "shell"
	}
	return session
}
