package sock

import (
	"golang.org/x/sys/unix"
)

func processInfo(pid int) (Process, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return Process{}, false
	}
	comm := k.Proc.P_comm[:]
	for i, c := range comm {
		if c == 0 {
			comm = comm[:i]
			break
		}
	}
	// The terminal's device number (Eproc.Tdev) has no portable name
	// here; the holder is named by command and pid alone.
	return Process{PID: pid, PPID: int(k.Eproc.Ppid), Comm: string(comm)}, true
}
