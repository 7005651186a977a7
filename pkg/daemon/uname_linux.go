package daemon

import (
	"runtime"
	"syscall"
)

// osText is GOOS/GOARCH and the kernel's name and release.
func osText() string {
	s := runtime.GOOS + "/" + runtime.GOARCH
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		s += " " + cstr(u.Sysname[:]) + " " + cstr(u.Release[:])
	}
	return s
}

func cstr(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}
