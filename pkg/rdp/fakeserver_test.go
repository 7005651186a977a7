package rdp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hostileServer is a small RDP server for tests: TLS security, no
// licensing, one I/O channel. It runs the connection sequence up to the
// font map and then hands the session to script, which sends what a
// broken or hostile server would. Client input is read and dropped.
type hostileServer struct {
	Addr     string
	Sessions atomic.Int64 // sessions that reached the script
}

// hostileSession is one activated session under the script's control.
type hostileSession struct {
	conn   net.Conn
	mu     sync.Mutex
	hungUp chan struct{} // closed when the client's side ends
}

// wait blocks until the client hangs up.
func (s *hostileSession) wait() { <-s.hungUp }

func (s *hostileSession) send(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.conn.Write(b)
	return err
}

// activate sends a Demand Active for a w x h desktop (and, when deactivate
// is set, a Deactivate All before it), then the font map.
func (s *hostileSession) activate(w, h int, deactivate bool) error {
	if deactivate {
		var b writer
		b.u32(0x103EA)
		b.u16(1)
		b.u8(0)
		if err := s.send(slowFrame(shareControlPDU(pduDeactivateAll, 1002, b.b))); err != nil {
			return err
		}
	}
	if err := s.send(demandActivePDU(w, h)); err != nil {
		return err
	}
	return s.send(serverDataPDU(pdu2FontMap, []byte{0, 0, 0, 0, 3, 0, 4, 0}))
}

func (s *hostileSession) errorInfo(code uint32) error {
	var b writer
	b.u32(code)
	return s.send(serverDataPDU(pdu2SetErrorInfo, b.b))
}

func selfSignedCert(t testing.TB) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// startHostile listens on 127.0.0.1; every connection that completes the
// sequence at w x h runs script (the connection closes when it returns).
func startHostile(t testing.TB, w, h int, script func(s *hostileSession)) *hostileServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	srv := &hostileServer{Addr: l.Addr().String()}
	cfg := &tls.Config{Certificates: []tls.Certificate{selfSignedCert(t)}}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s, err := hostileHandshake(c, cfg, w, h)
				if err != nil {
					return
				}
				srv.Sessions.Add(1)
				go func() { io.Copy(io.Discard, s.conn); close(s.hungUp) }()
				script(s)
			}()
		}
	}()
	return srv
}

func hostileHandshake(c net.Conn, cfg *tls.Config, w, h int) (*hostileSession, error) {
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := readTPKT(c); err != nil {
		return nil, err
	}
	if _, err := c.Write(connectionConfirmPDU(ProtocolSSL)); err != nil {
		return nil, err
	}
	tc := tls.Server(c, cfg)
	if err := tc.Handshake(); err != nil {
		return nil, err
	}
	read := func() error { _, err := readTPKT(tc); return err }
	if err := read(); err != nil { // MCS connect initial
		return nil, err
	}
	if _, err := tc.Write(x224Data(connectResponse(serverBlocks(1003, nil, 0, 0)))); err != nil {
		return nil, err
	}
	if err := read(); err != nil { // erect domain
		return nil, err
	}
	if err := read(); err != nil { // attach user
		return nil, err
	}
	if _, err := tc.Write(x224Data([]byte{mcsAttachUserConf << 2, 0, 0, 6})); err != nil {
		return nil, err
	}
	for _, ch := range []uint16{1007, 1003} {
		if err := read(); err != nil {
			return nil, err
		}
		if _, err := tc.Write(x224Data([]byte{mcsChannelJoinConf << 2, 0, 0, 6, byte(ch >> 8), byte(ch), byte(ch >> 8), byte(ch)})); err != nil {
			return nil, err
		}
	}
	if err := read(); err != nil { // client info
		return nil, err
	}
	c.SetDeadline(time.Time{})
	s := &hostileSession{conn: tc, hungUp: make(chan struct{})}
	if err := s.activate(w, h, false); err != nil {
		return nil, err
	}
	// Confirm active, synchronize, two controls and the font list: the
	// client is active once they are in.
	for range 5 {
		if err := read(); err != nil {
			return nil, err
		}
	}
	return s, nil
}
