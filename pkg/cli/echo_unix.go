//go:build linux || darwin

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// noEcho turns off echo on a terminal while a password is typed; restore
// turns it back on. It fails (and the caller reads normally) when f is not
// a terminal, e.g. a pipe.
func noEcho(f *os.File) (restore func(), err error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &quiet); err != nil {
		return nil, err
	}
	return func() { unix.IoctlSetTermios(fd, ioctlSetTermios, old) }, nil
}
