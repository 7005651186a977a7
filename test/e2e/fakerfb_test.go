package e2e

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
)

// sizedRFB completes an RFB 3.8 handshake (security None) announcing a
// w x h desktop, then runs serve on the connection.
func sizedRFB(t *testing.T, w, h int, serve func(c net.Conn)) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("RFB 003.008\n"))
				buf := make([]byte, 12)
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				c.Write([]byte{1, 1})
				if _, err := io.ReadFull(c, buf[:1]); err != nil {
					return
				}
				c.Write([]byte{0, 0, 0, 0})
				if _, err := io.ReadFull(c, buf[:1]); err != nil {
					return
				}
				init := []byte{byte(w >> 8), byte(w), byte(h >> 8), byte(h), 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0, 0, 0, 0, 4, 'b', 'i', 'g', '!'}
				c.Write(init)
				serve(c)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// hostileRFB completes the handshake for a 64x64 desktop, then sends what
// evil() returns and reads whatever the client says.
func hostileRFB(t *testing.T, evil func() []byte) int {
	return sizedRFB(t, 64, 64, func(c net.Conn) {
		c.Write(evil())
		io.Copy(io.Discard, c)
	})
}

// droppingRFB completes every handshake (a 64x64 desktop) and hangs up at
// once; it counts the sessions it served.
func droppingRFB(t *testing.T, sessions *atomic.Int64) int {
	return sizedRFB(t, 64, 64, func(net.Conn) { sessions.Add(1) })
}
