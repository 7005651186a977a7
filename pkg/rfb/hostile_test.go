package rfb

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

func TestHostileServers(t *testing.T) {
	big32 := func(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
	cases := []struct {
		name string
		send []byte
	}{
		{"unknown message type", []byte{77, 1, 2, 3}},
		{"rect outside the framebuffer", update(append(rectHeader(60, 40, 10, 10, EncRaw), make([]byte, 400)...))},
		{"rect with huge size", update(rectHeader(0, 0, 65535, 65535, EncRaw))},
		{"unrequested encoding", update(rectHeader(0, 0, 4, 4, 12345))},
		{"cut text of 2 GiB", append([]byte{msgServerCutText, 0, 0, 0}, big32(0x7ffffff0)...)},
		{"extended clipboard of 2 GiB", append([]byte{msgServerCutText, 0, 0, 0}, big32(0x80000000)...)},
		{"zlib length of 4 GiB", update(append(rectHeader(0, 0, 8, 8, EncZlib), big32(0xffffffff)...))},
		{"ZRLE garbage", update(append(append(rectHeader(0, 0, 8, 8, EncZRLE), big32(6)...), 0x78, 0x9c, 1, 2, 3, 4))},
		{"RRE with billions of subrects", update(append(append(rectHeader(0, 0, 8, 8, EncRRE), big32(0xffffffff)...), 0, 0, 0, 0))},
		{"cursor of 65535x65535", update(rectHeader(0, 0, 65535, 65535, EncCursor))},
		{"desktop size beyond the limit", update(rectHeader(0, 0, 65535, 65535, EncDesktopSize))},
		{"truncated update", update(append(rectHeader(0, 0, 8, 8, EncRaw), 1, 2, 3))},
		{"fence with 255-byte payload", []byte{msgServerFence, 0, 0, 0, 0x80, 0, 0, 0, 255}},
		{"tight JPEG lying about its size", update(append(rectHeader(0, 0, 8, 8, EncTight), 0x90, 4, 0xff, 0xd8, 0xff, 0xd9))},
		{"hextile subrect outside its tile", update(append(rectHeader(0, 0, 8, 8, EncHextile), hexAnySubrects|hexForeground, 1, 2, 3, 4, 1, 0x77, 0xff))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startFake(t, 64, 48, nil, func(c net.Conn) {
				c.Write(tc.send)
				if tc.name == "truncated update" {
					// Hang up mid-message with a clean FIN: close our side
					// but keep reading, or unread client bytes would turn
					// the close into a reset (a network error, not a
					// protocol one).
					if tcp, ok := c.(*net.TCPConn); ok {
						tcp.CloseWrite()
					}
				}
				drain(c)
			})
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			c, err := Dial(context.Background(), s.addr(), &Config{HandshakeTimeout: 5 * time.Second})
			if err != nil {
				var pe *ProtocolError
				if errors.As(err, &pe) {
					return
				}
				t.Fatalf("dial: %v", err)
			}
			done := make(chan error, 1)
			go func() { done <- c.Run() }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				c.Close()
				t.Fatal("Run did not return on a hostile stream")
			}
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("Run returned %v (%T), want *ProtocolError", err, err)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d MiB on a hostile stream", grew>>20)
			}
		})
	}
}

func TestHostileServerInit(t *testing.T) {
	s := startFake(t, 65535, 65535, nil, drain)
	_, err := Dial(context.Background(), s.addr(), &Config{})
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want *ProtocolError", err)
	}
}

func TestNotRFB(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
			drain(c) // hold the line open until the client gives up
			c.Close()
		}
	}()
	_, err := Dial(context.Background(), ln.Addr().String(), &Config{})
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want *ProtocolError", err)
	}
}

func TestHandshakeTimeout(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			io.Copy(io.Discard, c) // says nothing
		}
	}()
	_, err := Dial(context.Background(), ln.Addr().String(), &Config{HandshakeTimeout: 300 * time.Millisecond})
	if err == nil || !isTimeout(err) {
		t.Fatalf("got %v, want a timeout", err)
	}
}

func TestServerHangupEndsRun(t *testing.T) {
	s := startFake(t, 64, 48, nil, func(c net.Conn) {
		c.Write(update(append(rectHeader(0, 0, 1, 1, EncRaw), 1, 2, 3, 0)))
	})
	c, err := Dial(context.Background(), s.addr(), &Config{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run() }()
	select {
	case err = <-done:
		// io.EOF when the read notices first, EPIPE/ECONNRESET when our
		// next update request does: a network error either way.
		var pe *ProtocolError
		var ne *net.OpError
		if errors.As(err, &pe) || !(errors.Is(err, io.EOF) || errors.As(err, &ne)) {
			t.Fatalf("Run returned %v (%T), want a network error", err, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the server hung up")
	}
}
