package rdp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
)

// Server-side encoders for the tests: they build what a server sends.

func serverBlocks(ioChan uint16, channels []uint16, msgChan uint16, enc uint32) []byte {
	var w writer
	w.u16(scCore)
	w.u16(12)
	w.u32(0x00080004)
	w.u32(ProtocolSSL)
	w.u16(scSecurity)
	w.u16(12)
	w.u32(enc)
	w.u32(enc)
	w.u16(scNet)
	w.u16(uint16(8 + 2*len(channels)))
	w.u16(ioChan)
	w.u16(uint16(len(channels)))
	for _, c := range channels {
		w.u16(c)
	}
	if msgChan != 0 {
		w.u16(scMsgChan)
		w.u16(6)
		w.u16(msgChan)
	}
	return w.b
}

func connectResponse(blocks []byte) []byte {
	var gcc writer
	gcc.bytes([]byte{0x00, 0x05, 0x00, 0x14, 0x7C, 0x00, 0x01})
	var inner writer
	inner.bytes([]byte{0x14, 0x76, 0x0A, 0x01, 0x01, 0x00, 0x01, 0xC0, 0x00})
	inner.bytes([]byte("McDn"))
	perLength(&inner, len(blocks))
	inner.bytes(blocks)
	perLength(&gcc, len(inner.b))
	gcc.bytes(inner.b)
	var body writer
	berTLV(&body, []byte{0x0A}, []byte{0})
	berTLV(&body, []byte{0x02}, []byte{0})
	body.bytes(domainParameters([8]int{22, 3, 0, 1, 0, 1, 0xFFF8, 2}))
	berTLV(&body, []byte{0x04}, gcc.b)
	var w writer
	berTLV(&w, []byte{0x7F, 0x66}, body.b)
	return w.b
}

func TestConnectionConfirm(t *testing.T) {
	cc := func(typ byte, v uint32) []byte {
		b := []byte{14, x224CC, 0, 0, 0, 0, 0, typ, 0, 8, 0, 0, 0, 0, 0}
		binary.LittleEndian.PutUint32(b[11:], v)
		return b
	}
	cases := []struct {
		name string
		in   []byte
		want uint32
		err  any
	}{
		{"tls", cc(negRsp, ProtocolSSL), ProtocolSSL, nil},
		{"nla", cc(negRsp, ProtocolHybrid), ProtocolHybrid, nil},
		{"no negotiation: standard security", []byte{6, x224CC, 0, 0, 0, 0, 0}, ProtocolRDP, nil},
		{"failure", cc(negFailure, NegHybridRequired), 0, new(*NegotiationError)},
		{"not a confirm", append([]byte{6, x224CR}, make([]byte, 5)...), 0, new(*ProtocolError)},
		{"short", []byte{6}, 0, new(*ProtocolError)},
		{"bad length indicator", []byte{200, x224CC, 0, 0, 0, 0, 0}, 0, new(*ProtocolError)},
		{"bad neg length", func() []byte { b := cc(negRsp, 1); b[9] = 9; return b }(), 0, new(*ProtocolError)},
		{"unknown neg type", cc(9, 1), 0, new(*ProtocolError)},
	}
	for _, c := range cases {
		got, err := parseConnectionConfirm(c.in)
		switch target := c.err.(type) {
		case nil:
			if err != nil || got != c.want {
				t.Errorf("%s: %d, %v; want %d", c.name, got, err, c.want)
			}
		case **NegotiationError:
			if !errors.As(err, target) {
				t.Errorf("%s: %v, want NegotiationError", c.name, err)
			}
		case **ProtocolError:
			if !errors.As(err, target) {
				t.Errorf("%s: %v, want ProtocolError", c.name, err)
			}
		}
	}
	// Every negotiation failure explains itself.
	for code := uint32(1); code <= 7; code++ {
		if msg := (&NegotiationError{Code: code}).Error(); len(msg) < 20 {
			t.Errorf("failure %d: %q", code, msg)
		}
	}
}

func TestConnectionRequestLayout(t *testing.T) {
	b := connectionRequest("alice", ProtocolSSL|ProtocolHybrid)
	if b[0] != 3 || int(binary.BigEndian.Uint16(b[2:])) != len(b) || int(b[4]) != len(b)-5 || b[5] != x224CR {
		t.Fatalf("header %x", b[:8])
	}
	if !bytes.Contains(b, []byte("Cookie: mstshash=alice\r\n")) {
		t.Fatal("no cookie")
	}
	if binary.LittleEndian.Uint32(b[len(b)-4:]) != ProtocolSSL|ProtocolHybrid || b[len(b)-8] != negReq {
		t.Fatalf("negotiation request %x", b[len(b)-8:])
	}
	if got := cookieName(`CORP\alice smith@x`); got != "CORP" {
		t.Errorf("cookieName = %q", got)
	}
}

func TestReadPDU(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		kind pduKind
		body []byte
		bad  bool
	}{
		{"tpkt", []byte{3, 0, 0, 7, 2, 0xF0, 0x80}, pduX224, []byte{2, 0xF0, 0x80}, false},
		{"fast-path short length", []byte{0x00, 4, 0xAA, 0xBB}, pduFastPath, []byte{0xAA, 0xBB}, false},
		{"fast-path long length", []byte{0x00, 0x80, 5, 0xAA, 0xBB}, pduFastPath, []byte{0xAA, 0xBB}, false},
		{"tpkt length under header", []byte{3, 0, 0, 2}, 0, nil, true},
		{"fast-path length under header", []byte{0x00, 1}, 0, nil, true},
		{"neither", []byte{0x02, 9}, 0, nil, true},
		{"truncated body", []byte{3, 0, 0, 9, 1}, 0, nil, true},
		{"eof in length", []byte{0x00, 0x80}, 0, nil, true},
	}
	for _, c := range cases {
		kind, _, body, err := readPDU(bufio.NewReader(bytes.NewReader(c.in)), nil)
		if c.bad {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		if err != nil || kind != c.kind || !bytes.Equal(body, c.body) {
			t.Errorf("%s: kind %d body %x err %v", c.name, kind, body, err)
		}
	}
}

func TestParseConnectResponse(t *testing.T) {
	sd, err := parseConnectResponse(connectResponse(serverBlocks(1003, []uint16{1004, 1005, 1006}, 1007, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if sd.IOChannel != 1003 || len(sd.Channels) != 3 || sd.MsgChannel != 1007 {
		t.Fatalf("%+v", sd)
	}
	var ue *UnsupportedError
	if _, err := parseConnectResponse(connectResponse(serverBlocks(1003, nil, 0, 2))); !errors.As(err, &ue) {
		t.Errorf("RDP encryption: %v, want UnsupportedError", err)
	}
	many := make([]uint16, maxServerChannels+1)
	for name, in := range map[string][]byte{
		"too many channels": connectResponse(serverBlocks(1003, many, 0, 0)),
		"no network block":  connectResponse([]byte{0x01, 0x0C, 8, 0, 4, 0, 8, 0}),
		"short block":       connectResponse([]byte{0x01, 0x0C, 2, 0}),
		"wrong tag":         {0x7F, 0x65, 0},
		"truncated":         connectResponse(serverBlocks(1003, nil, 0, 0))[:30],
		"empty":             nil,
	} {
		if _, err := parseConnectResponse(in); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestMCSDomainPDUs(t *testing.T) {
	if u, err := parseAttachUserConfirm([]byte{0x2E, 0, 0, 6}); err != nil || u != 1007 {
		t.Fatalf("attach user confirm: %d %v", u, err)
	}
	if _, err := parseAttachUserConfirm([]byte{0x2E, 1, 0, 6}); err == nil {
		t.Error("refused attach accepted")
	}
	if ch, err := parseChannelJoinConfirm([]byte{0x3E, 0, 0, 6, 0x03, 0xEB, 0x03, 0xEB}); err != nil || ch != 1003 {
		t.Fatalf("channel join confirm: %d %v", ch, err)
	}
	ind := mcsSendData(1007, 1003, bytes.Repeat([]byte{7}, 300))
	ind[0] = mcsSendDataInd << 2
	ch, data, err := parseSendDataIndication(ind)
	if err != nil || ch != 1003 || len(data) != 300 {
		t.Fatalf("send data indication: %d %d %v", ch, len(data), err)
	}
	var de *DisconnectError
	if _, _, err := parseSendDataIndication([]byte{mcsDisconnectUlt<<2 | 1, 0x80}); !errors.As(err, &de) {
		t.Errorf("ultimatum: %v", err)
	}
	if _, _, err := parseSendDataIndication(ind[:10]); err == nil {
		t.Error("truncated indication accepted")
	}
}

func FuzzConnectResponse(f *testing.F) {
	f.Add(connectResponse(serverBlocks(1003, []uint16{1004}, 1005, 0)))
	f.Add([]byte{0x7F, 0x66, 0x82, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, b []byte) {
		sd, err := parseConnectResponse(b)
		if err == nil && len(sd.Channels) > maxServerChannels {
			t.Fatal("channel bound not enforced")
		}
	})
}

func FuzzX224(f *testing.F) {
	f.Add([]byte{3, 0, 0, 19, 14, x224CC, 0, 0, 0, 0, 0, negRsp, 0, 8, 0, 1, 0, 0, 0})
	f.Add([]byte{0x00, 0x80, 5, 0xAA, 0xBB})
	f.Fuzz(func(t *testing.T, b []byte) {
		br := bufio.NewReader(bytes.NewReader(b))
		for range 4 {
			kind, _, body, err := readPDU(br, nil)
			if err != nil {
				return
			}
			if kind == pduX224 {
				parseConnectionConfirm(body)
				if p, err := x224Payload(body); err == nil {
					parseSendDataIndication(p)
					parseAttachUserConfirm(p)
					parseChannelJoinConfirm(p)
				}
			}
		}
	})
}

func TestTSRequest(t *testing.T) {
	in := &tsRequest{Version: 6, NegoTokens: []negoToken{{[]byte("token")}}, PubKeyAuth: []byte{1, 2}, ClientNonce: bytes.Repeat([]byte{9}, 32)}
	b := marshalTSRequest(in)
	got, err := readDER(bytes.NewReader(b), maxTSRequest)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("readDER: %v", err)
	}
	out, err := parseTSRequest(b)
	if err != nil || out.Version != 6 || string(out.NegoTokens[0].Token) != "token" || len(out.ClientNonce) != 32 || out.AuthInfo != nil {
		t.Fatalf("round trip: %+v %v", out, err)
	}
	// An error code, both as a negative 4-byte and a positive 5-byte INTEGER.
	for _, enc := range [][]byte{{0x02, 0x04, 0xC0, 0x00, 0x00, 0x6D}, {0x02, 0x05, 0x00, 0xC0, 0x00, 0x00, 0x6D}} {
		var body writer
		berTLV(&body, []byte{0xA0}, []byte{0x02, 0x01, 0x06})
		berTLV(&body, []byte{0xA4}, enc)
		var w writer
		berTLV(&w, []byte{0x30}, body.b)
		_, err := readTSRequest(bytes.NewReader(w.b), "test")
		var ae *AuthError
		if !errors.As(err, &ae) || ae.Status != statusLogonFailure {
			t.Errorf("errorCode %x: %v", enc, err)
		}
	}
	for name, in := range map[string][]byte{
		"not a sequence": {0x04, 0x00},
		"huge length":    {0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF},
		"length of 0":    {0x30, 0x80},
		"truncated":      b[:len(b)-3],
	} {
		if got, err := readDER(bytes.NewReader(in), maxTSRequest); err == nil {
			if _, err := parseTSRequest(got); err == nil {
				t.Errorf("%s: accepted", name)
			}
		}
	}
	if _, err := parseTSRequest(append(bytes.Clone(b), 0)); err == nil {
		t.Error("trailing byte accepted")
	}
}

func FuzzTSRequest(f *testing.F) {
	f.Add(marshalTSRequest(&tsRequest{Version: 6, NegoTokens: []negoToken{{[]byte("x")}}}))
	f.Add(marshalTSRequest(&tsRequest{Version: 2, PubKeyAuth: []byte{1}, ErrorCode: -1073741715}))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := readDER(bytes.NewReader(b), maxTSRequest)
		if err != nil {
			return
		}
		if len(d) > maxTSRequest+8 {
			t.Fatal("DER bound not enforced")
		}
		parseTSRequest(d)
	})
}

// discardConn is a net.Conn that swallows writes, for feeding a client a
// recorded or fuzzed stream.
type discardConn struct{ net.Conn }

func (discardConn) Write(b []byte) (int, error)      { return len(b), nil }
func (discardConn) Close() error                     { return nil }
func (discardConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (discardConn) SetDeadline(time.Time) error      { return nil }
func (discardConn) Read(b []byte) (int, error)       { return 0, io.EOF }
func (discardConn) SetReadDeadline(time.Time) error  { return nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }
func (discardConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }

// testClient is a client past activation reading from stream.
func testClient(stream []byte) (*Client, *fb.Buffer) {
	buf := fb.New()
	buf.Resize(64, 48)
	c := &Client{conn: discardConn{}, raw: discardConn{}, br: bufio.NewReader(bytes.NewReader(stream)), io: 1003, user: 1007,
		ready: make(chan struct{}), done: make(chan struct{})}
	c.cfg = Config{Addr: "test", Framebuffer: buf, ColorDepth: 32}
	c.paint.buf = buf
	return c, buf
}

// The HYBRID_EX result that follows CredSSP (no server here speaks it:
// FreeRDP 2's shadow server refuses to select it).
func TestEarlyUserAuthorization(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		ok   bool
		auth bool
	}{
		{[]byte{0, 0, 0, 0}, true, false},
		{[]byte{5, 0, 0, 0}, false, true},
		{[]byte{9, 0, 0, 0}, false, false},
		{[]byte{0, 0}, false, true}, // closed early: treated as refused credentials
	} {
		cl := &Client{br: bufio.NewReader(bytes.NewReader(c.in))}
		err := cl.earlyUserAuthorization()
		var ae *AuthError
		if (err == nil) != c.ok || errors.As(err, &ae) != c.auth {
			t.Errorf("%x: %v", c.in, err)
		}
	}
}
