package rfb

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
)

// fakeServer is an in-test RFB server for what no real server here can
// produce: hostile streams and ARD. It completes the handshake with the
// given security, sends ServerInit for w x h and hands the connection to
// script.
type fakeServer struct {
	ln   net.Listener
	done chan struct{}
}

func startFake(t *testing.T, w, h int, security func(c net.Conn) bool, script func(c net.Conn)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte("RFB 003.008\n"))
		var v [12]byte
		if _, err := io.ReadFull(c, v[:]); err != nil {
			return
		}
		if security == nil {
			security = noneSecurity
		}
		if !security(c) {
			return
		}
		var shared [1]byte
		io.ReadFull(c, shared[:])
		init := []byte{byte(w >> 8), byte(w), byte(h >> 8), byte(h), 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0}
		init = binary.BigEndian.AppendUint32(init, 4)
		c.Write(append(init, "fake"...))
		if script != nil {
			script(c)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-s.done })
	return s
}

func (s *fakeServer) addr() string { return s.ln.Addr().String() }

func noneSecurity(c net.Conn) bool {
	c.Write([]byte{1, secNone})
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		return false
	}
	c.Write([]byte{0, 0, 0, 0})
	return true
}

// drain reads and discards what the client sends until it closes.
func drain(c net.Conn) { io.Copy(io.Discard, c) }

func rectHeader(x, y, w, h int, enc int32) []byte {
	b := []byte{byte(x >> 8), byte(x), byte(y >> 8), byte(y), byte(w >> 8), byte(w), byte(h >> 8), byte(h)}
	return binary.BigEndian.AppendUint32(b, uint32(enc))
}

func update(rects ...[]byte) []byte {
	b := []byte{msgFramebufferUpdate, 0, byte(len(rects) >> 8), byte(len(rects))}
	for _, r := range rects {
		b = append(b, r...)
	}
	return b
}
