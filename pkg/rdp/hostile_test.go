package rdp

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
)

// listenOnce accepts one connection on 127.0.0.1 and hands it to serve.
func listenOnce(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	return l.Addr().String()
}

// readTPKT reads one TPKT-framed PDU.
func readTPKT(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	body := make([]byte, int(binary.BigEndian.Uint16(hdr[2:]))-4)
	_, err := io.ReadFull(r, body)
	return body, err
}

func connectionConfirmPDU(selected uint32) []byte {
	b := []byte{tpktVersion, 0, 0, 19, 14, x224CC, 0, 0, 0, 0, 0, negRsp, 0, 8, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[15:], selected)
	return b
}

// A server that selects a security protocol the client did not offer is
// refused before the client sends another byte: no TLS hello, no CredSSP
// negotiation with whatever credentials it holds.
func TestServerSelectsProtocolNotOffered(t *testing.T) {
	cases := []struct {
		name     string
		password string
		selected uint32
	}{
		{"NLA when only TLS was offered", "", ProtocolHybrid},
		{"NLA-EX when only TLS was offered", "", ProtocolHybridEx},
		{"RDSTLS", "secret", 0x4},
		{"unknown bit", "secret", 0x100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			after := make(chan int, 1)
			addr := listenOnce(t, func(c net.Conn) {
				if _, err := readTPKT(c); err != nil {
					after <- -1
					return
				}
				c.Write(connectionConfirmPDU(tc.selected))
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				n, _ := io.Copy(io.Discard, c)
				after <- int(n)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := Dial(ctx, Config{Addr: addr, User: "u", Password: tc.password, Framebuffer: fb.New()})
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("Dial: %v, want a ProtocolError", err)
			}
			if n := <-after; n != 0 {
				t.Fatalf("the client sent %d bytes after the server's selection", n)
			}
		})
	}
}
