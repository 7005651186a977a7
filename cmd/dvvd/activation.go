package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
)

// listenFDsStart is the first descriptor systemd passes (SD_LISTEN_FDS_START).
const listenFDsStart = 3

// activatedListener returns the socket systemd passed to this process
// (dvvd.socket, LISTEN_PID/LISTEN_FDS), or nil when dvvd was started
// without one. The variables are removed so no child inherits them.
func activatedListener() (*net.UnixListener, error) {
	pid, fds := os.Getenv("LISTEN_PID"), os.Getenv("LISTEN_FDS")
	os.Unsetenv("LISTEN_PID")
	os.Unsetenv("LISTEN_FDS")
	os.Unsetenv("LISTEN_FDNAMES")
	if pid != strconv.Itoa(os.Getpid()) || fds == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(fds)
	if err != nil || n != 1 {
		return nil, fmt.Errorf("LISTEN_FDS=%q: dvvd takes exactly one socket (one ListenStream= in dvvd.socket)", fds)
	}
	syscall.CloseOnExec(listenFDsStart)
	f := os.NewFile(listenFDsStart, "activation-socket")
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("the passed socket: %w", err)
	}
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		ln.Close()
		return nil, fmt.Errorf("the passed socket is %s, not a Unix stream socket (ListenStream= must name a path)", ln.Addr().Network())
	}
	return ul, nil
}
