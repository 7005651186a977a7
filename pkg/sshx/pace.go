package sshx

import (
	"net"
	"time"
)

// A flood of terminal output arrives as a stream of small packets: a PTY
// hands sshd 4 KiB at a time. Read one by one, each packet wakes three
// goroutines of x/crypto/ssh and ours (socket reader, connection mux,
// session reader) and costs a system call; on a busy machine those
// wake-ups cost more CPU than the bytes. pacedConn coalesces: after a read
// that brought a burst of bulk data, it lets the next packets gather for
// a millisecond and takes them in one read, which the stages after it
// then handle back to back. Keystroke echoes (small reads) and fast bulk
// transfers (reads that fill the buffer) are never held.
type pacedConn struct {
	net.Conn
	wait bool // the last read was a burst: let the next one gather
}

// Pacing bounds: a read of paceMin..paceMax bytes is a burst of bulk
// data arriving no faster than it is read; paceDelay is the most any
// byte is held for it.
const (
	paceMin   = 1 << 10
	paceMax   = 16 << 10
	paceDelay = time.Millisecond
)

func (p *pacedConn) Read(b []byte) (int, error) {
	if p.wait {
		time.Sleep(paceDelay)
	}
	n, err := p.Conn.Read(b)
	p.wait = burst(n)
	return n, err
}

// burst reports whether a read of n bytes was bulk data that came in
// packet by packet.
func burst(n int) bool { return n >= paceMin && n < paceMax }
