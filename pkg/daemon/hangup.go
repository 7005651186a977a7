package daemon

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// cancelOnHangup calls cancel once the peer of nc has closed the socket
// altogether (POLLHUP), as opposed to only shutting its sending side
// (`nc -N`, which still reads its answers). A client killed while a long
// request runs (a transfer) thus stops that request although nothing is
// written to it. It returns when stop closes.
func cancelOnHangup(nc net.Conn, cancel func(), stop <-chan struct{}) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	// Polled in 200 ms turns on this goroutine, which only exists while a
	// connection drains after its client stopped sending: cheap, and the
	// runtime's netpoller offers no hang-up notification to wait on.
	for {
		select {
		case <-stop:
			return
		default:
		}
		hup := false
		cerr := raw.Control(func(fd uintptr) {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLHUP}}
			// A bounded wait, so stop is seen: the fd cannot be polled
			// outside Control, where it could be closed under us.
			if n, err := unix.Poll(fds, 200); err == nil && n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
				hup = true
			}
		})
		if cerr != nil {
			return
		}
		if hup {
			cancel()
			return
		}
	}
}
