//go:build !darwin

package sock

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

func processInfo(pid int) (Process, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Process{}, false
	}
	// pid (comm) state ppid pgrp session tty_nr …: comm may hold spaces
	// and parentheses, so it ends at the last ')'.
	s := string(b)
	i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || j < i {
		return Process{}, false
	}
	f := strings.Fields(s[j+1:])
	if len(f) < 5 {
		return Process{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return Process{}, false
	}
	tty, _ := strconv.ParseInt(f[4], 10, 64)
	return Process{PID: pid, PPID: ppid, Comm: s[i+1 : j], TTY: ttyName(tty)}, true
}

// ttyName names a Linux tty_nr (the device number of the controlling
// terminal, 0 for none) as ps does.
func ttyName(nr int64) string {
	if nr == 0 {
		return ""
	}
	major := (nr >> 8) & 0xfff
	minor := (nr & 0xff) | ((nr >> 12) & 0xfff00)
	switch {
	case major >= 136 && major <= 143: // Unix98 pty slaves
		return fmt.Sprintf("pts/%d", (major-136)*256+minor)
	case major == 4 && minor < 64:
		return fmt.Sprintf("tty%d", minor)
	case major == 4:
		return fmt.Sprintf("ttyS%d", minor-64)
	}
	return fmt.Sprintf("tty %d:%d", major, minor)
}
