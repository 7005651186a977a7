package ssh

import (
	"context"
	"crypto/rand"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestMalformedServersArePermanent: a server that answers with something
// that is not SSH, or breaks the protocol, is PROTOCOL_ERROR (permanent,
// not retried); one that only hangs up is UNREACHABLE (retried).
func TestMalformedServersArePermanent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		raw  rawFunc
		want wire.Code
	}{
		{"an HTTP server", func(nc net.Conn) { io.WriteString(nc, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") }, wire.ProtocolError},
		{"random bytes", func(nc net.Conn) { io.CopyN(nc, rand.Reader, 64<<10) }, wire.ProtocolError},
		{"an SSH banner then garbage packets", func(nc net.Conn) {
			io.WriteString(nc, "SSH-2.0-hostile\r\n")
			garbage := make([]byte, 4096)
			rand.Read(garbage)
			nc.Write(garbage)
			io.Copy(io.Discard, nc)
		}, wire.ProtocolError},
		{"an overlong banner line", func(nc net.Conn) { io.WriteString(nc, "SSH-2.0-"+strings.Repeat("x", 600)+"\r\n") }, wire.ProtocolError},
		{"a server that hangs up without a byte", func(nc net.Conn) {}, wire.Unreachable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := startHostileSSH(t, nil, c.raw)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := h.opts().DialTerminal(ctx, h.target())
			if code(err) != c.want {
				t.Fatalf("dial: want %s, got %v", c.want, err)
			}
			if _, _, err := h.opts().TrustHostKeyChecked("127.0.0.1", h.port, "", true); code(err) != c.want {
				t.Fatalf("trust: want %s, got %v", c.want, err)
			}
		})
	}
}

// TestProtocolBreakMidSession: garbage after a working handshake ends
// the session with PROTOCOL_ERROR, not a plain drop.
func TestProtocolBreakMidSession(t *testing.T) {
	t.Parallel()
	h := startHostileSSH(t, func(nc net.Conn, ch ssh.Channel, reqs <-chan *ssh.Request) {
		if acceptShell(reqs) {
			ch.Write([]byte("$ "))
		}
		garbage := make([]byte, 4096)
		rand.Read(garbage)
		nc.Write(garbage) // under the encryption: a bad MAC or length
		io.Copy(io.Discard, nc)
	}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	term, err := h.opts().DialTerminal(ctx, h.target())
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	select {
	case <-term.Done():
	case <-ctx.Done():
		t.Fatal("the broken connection was never noticed")
	}
	if code(term.Err()) != wire.ProtocolError {
		t.Fatalf("want PROTOCOL_ERROR, got %v", term.Err())
	}
}
