package rdp

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
)

// Config describes one connection.
type Config struct {
	// Addr is host:port.
	Addr string
	// User, Domain and Password authenticate: through NLA when the server
	// asks for it, else as an auto-logon in the Client Info PDU. A User of
	// the form DOMAIN\user sets Domain when Domain is empty; user@domain
	// (UPN) is passed as is.
	User, Domain, Password string
	// Width and Height are the desktop size we ask for; servers may force
	// their own (the framebuffer follows). 0 means 1024x768.
	Width, Height int
	// ColorDepth is 32 (default), 24, 16 or 15.
	ColorDepth int
	// ClientName is shown on the server; default "dvv".
	ClientName string
	// Framebuffer receives the pixels; required.
	Framebuffer *fb.Buffer
	// VerifyCert decides whether to trust the server's TLS certificate,
	// given its DER bytes and SHA-256 fingerprint (hex with colons). Return
	// a *CertError for unknown or changed certificates. nil trusts any
	// certificate, which only tests should do.
	VerifyCert func(hostport string, der []byte, fingerprint string) error
	// Dial opens the TCP connection; default net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Clipboard opens the "cliprdr" channel for text clipboard exchange.
	Clipboard bool
	// Logf, when set, receives a line per notable protocol event
	// (activation, deactivation, errors), for diagnostics. Never secrets.
	Logf func(format string, args ...any)
	// tap, in tests, receives every PDU the read loop takes in, framed as on
	// the wire, for recording sessions to replay.
	tap io.Writer
	// clock, in tests, stands for time.Now in the resize storm rule, so a
	// test can tell it a storm's pace whatever the machine's speed.
	clock func() time.Time
	// HandshakeTimeout bounds connecting when ctx has no deadline; default 30 s.
	HandshakeTimeout time.Duration
}

// Fingerprint is the SHA-256 of a DER certificate, hex pairs with colons.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	var sb strings.Builder
	for i, c := range sum {
		if i > 0 {
			sb.WriteByte(':')
		}
		fmt.Fprintf(&sb, "%02X", c)
	}
	return sb.String()
}

// Client is one live RDP session.
type Client struct {
	cfg  Config
	conn net.Conn
	raw  net.Conn // the TCP connection under TLS: closing it never waits on a TLS alert
	br   *bufio.Reader

	wmu      sync.Mutex // serialises writes
	user     uint16
	io       uint16
	msgChan  uint16
	protocol uint32

	// Fields the read loop owns.
	shareID atomic.Uint32
	caps    atomic.Pointer[serverCaps]
	paint   painter
	lic     licensing
	licDone bool
	clip    clipboard
	ra      reassembler
	readBuf []byte

	mu        sync.Mutex
	ptr       pointerState
	leds      uint16
	ledsKnown bool
	errInfo   uint32
	cursorSeq uint64
	bells     uint64

	ready     chan struct{}
	readyOnce sync.Once
	done      chan struct{}
	doneOnce  sync.Once
	err       error
	closed    atomic.Bool
	closing   chan struct{} // closed by Close: ends a decode-budget pause
	activated atomic.Int32  // activations seen (1 at first, more after reactivation)
	storm     fb.StormGuard // refuses a server changing the desktop size without end

	lastRead atomic.Int64 // unix nanoseconds of the latest bytes from the server
	probing  atomic.Bool  // a liveness probe is being written
}

// Dial connects, authenticates and activates a session. It returns once the
// server has finished the connection sequence (font map received).
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Framebuffer == nil {
		return nil, errors.New("rdp: Config.Framebuffer is required")
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		cfg.Width, cfg.Height = 1024, 768
	}
	switch cfg.ColorDepth {
	case 15, 16, 24, 32:
	default:
		cfg.ColorDepth = 32
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "dvv"
	}
	if dom, user, ok := strings.Cut(cfg.User, `\`); ok && cfg.Domain == "" {
		// DOMAIN\user, as people write it for Windows logons.
		cfg.Domain, cfg.User = dom, user
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = 30 * time.Second
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.HandshakeTimeout)
		defer cancel()
	}
	dial := cfg.Dial
	if dial == nil {
		d := net.Dialer{KeepAliveConfig: keepAlive}
		dial = d.DialContext
	}
	raw, err := dial(ctx, "tcp", cfg.Addr)
	if err != nil {
		return nil, &UnreachableError{Addr: cfg.Addr, Err: err}
	}
	c := &Client{cfg: cfg, conn: raw, raw: raw, ready: make(chan struct{}), done: make(chan struct{}), closing: make(chan struct{})}
	c.lastRead.Store(time.Now().UnixNano())
	c.paint.buf = cfg.Framebuffer
	c.lic.user, c.lic.machine = cfg.User, cfg.ClientName
	// Abort blocking reads and writes when ctx ends during set-up.
	stop := context.AfterFunc(ctx, func() { raw.SetDeadline(time.Unix(1, 0)) })
	if err := c.handshake(ctx); err != nil {
		stop()
		raw.Close()
		if ctx.Err() != nil && !isTyped(err) {
			return nil, &UnreachableError{Addr: cfg.Addr, Err: fmt.Errorf("connection set-up did not finish: %w", ctx.Err())}
		}
		return nil, c.classify(err)
	}
	go c.loop()
	select {
	case <-c.ready:
	case <-c.done:
	case <-ctx.Done():
	}
	stop()
	select {
	case <-c.ready:
		raw.SetDeadline(time.Time{})
		go c.watch()
		return c, nil
	default:
	}
	c.raw.Close()
	<-c.done
	if c.err != nil && !errors.Is(c.err, ErrClosed) && (ctx.Err() == nil || isTyped(c.err)) {
		return nil, c.err
	}
	return nil, &UnreachableError{Addr: cfg.Addr, Err: fmt.Errorf("the server did not finish activating the session: %w", ctx.Err())}
}

// UnreachableError means the TCP connection failed or broke.
type UnreachableError struct {
	Addr string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("rdp: %s: %v", e.Addr, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

func isTyped(err error) bool {
	var (
		pe *ProtocolError
		ae *AuthError
		ue *UnsupportedError
		ne *NegotiationError
		ce *CertError
		de *DisconnectError
	)
	return errors.As(err, &pe) || errors.As(err, &ae) || errors.As(err, &ue) || errors.As(err, &ne) ||
		errors.As(err, &ce) || errors.As(err, &de)
}

// classify wraps network failures as UnreachableError and keeps typed ones.
func (c *Client) classify(err error) error {
	if err == nil || isTyped(err) {
		return err
	}
	var ue *UnreachableError
	if errors.As(err, &ue) {
		return err
	}
	return &UnreachableError{Addr: c.cfg.Addr, Err: err}
}

func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (c *Client) handshake(ctx context.Context) error {
	cfg := &c.cfg
	protocols := uint32(ProtocolSSL)
	if cfg.Password != "" {
		protocols |= ProtocolHybrid | ProtocolHybridEx
	}
	selected, err := negotiate(c.conn, cfg.Addr, cfg.User, protocols)
	if err != nil {
		var ne *NegotiationError
		if errors.As(err, &ne) && ne.Code == NegHybridRequired && cfg.Password == "" {
			return &AuthError{Msg: "the server requires NLA; give a user name and password"}
		}
		return err
	}
	c.protocol = selected
	c.logf("rdp: negotiated protocol %d", selected)
	tc, der, err := upgradeTLS(ctx, c.conn, cfg.Addr)
	if err != nil {
		return err
	}
	if cfg.VerifyCert != nil {
		if err := cfg.VerifyCert(cfg.Addr, der, Fingerprint(der)); err != nil {
			return err
		}
	}
	c.logf("rdp: TLS up")
	c.conn = tc
	c.br = bufio.NewReaderSize(&aliveReader{r: tc, last: &c.lastRead}, 64<<10)

	if selected == ProtocolHybrid || selected == ProtocolHybridEx {
		pub, err := subjectPublicKey(der)
		if err != nil {
			return err
		}
		if err := credSSP(struct {
			io.Reader
			io.Writer
		}{c.br, tc}, pub, cfg.User, cfg.Domain, cfg.Password); err != nil {
			return err
		}
	}
	if selected == ProtocolHybridEx {
		if err := c.earlyUserAuthorization(); err != nil {
			return err
		}
	}
	return c.mcsConnect()
}

// negotiate sends the X.224 connection request and reads the server's
// choice of security protocol; only TLS and NLA are accepted.
func negotiate(conn net.Conn, addr, user string, protocols uint32) (uint32, error) {
	if _, err := conn.Write(connectionRequest(cookieName(user), protocols)); err != nil {
		return 0, err
	}
	// Unbuffered on purpose: the TLS handshake follows on the same socket.
	var hdr [4]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isConnReset(err) {
			return 0, &UnreachableError{Addr: addr, Err: errors.New("the server closed the connection at the first request; is this an RDP server?")}
		}
		return 0, err
	}
	if hdr[0] != tpktVersion {
		return 0, protoErr("X.224 connection confirm", "not a TPKT header (0x%02X); is this an RDP server?", hdr[0])
	}
	n := int(hdr[2])<<8 | int(hdr[3])
	if n < 4+7 || n > 512 {
		return 0, protoErr("X.224 connection confirm", "length %d", n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(conn, body); err != nil {
		return 0, unexpectedEOF(err)
	}
	selected, err := parseConnectionConfirm(body)
	if err != nil {
		return 0, err
	}
	switch {
	case selected == ProtocolRDP:
		return 0, &UnsupportedError{Msg: "the server speaks only standard RDP security (legacy RC4), which this client does not; enable TLS or NLA on the server"}
	case selected&protocols != selected || (selected != ProtocolSSL && selected != ProtocolHybrid && selected != ProtocolHybridEx):
		// A selection outside the offer is refused before another byte
		// goes out: no TLS hello, and above all no CredSSP exchange with
		// credentials the server was never meant to see.
		return 0, protoErr("X.224 connection confirm", "the server selected security protocol 0x%X, which was not offered (offered 0x%X)", selected, protocols)
	}
	return selected, nil
}

// upgradeTLS runs the TLS handshake. Certificates are not checked against
// a CA here: trust is pinned by the caller (Config.VerifyCert).
func upgradeTLS(ctx context.Context, conn net.Conn, addr string) (*tls.Conn, []byte, error) {
	tc := tls.Client(conn, &tls.Config{
		InsecureSkipVerify: true, // pinned on first use by VerifyCert instead
		MinVersion:         tls.VersionTLS10,
		ServerName:         hostOf(addr),
	})
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, nil, fmt.Errorf("TLS handshake: %w", err)
	}
	certs := tc.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, nil, protoErr("TLS handshake", "the server sent no certificate")
	}
	return tc, certs[0].Raw, nil
}

// FetchCertificate connects to addr, negotiates TLS and returns the
// server's certificate (DER) without authenticating, so a person can
// decide whether to trust it.
func FetchCertificate(ctx context.Context, addr string) ([]byte, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &UnreachableError{Addr: addr, Err: err}
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := negotiate(conn, addr, "", ProtocolSSL|ProtocolHybrid); err != nil {
		if isTyped(err) {
			return nil, err
		}
		return nil, &UnreachableError{Addr: addr, Err: err}
	}
	_, der, err := upgradeTLS(ctx, conn, addr)
	if err != nil {
		return nil, &UnreachableError{Addr: addr, Err: err}
	}
	return der, nil
}

func cookieName(user string) string {
	if i := strings.IndexAny(user, "\\@"); i >= 0 {
		user = user[:i]
	}
	if len(user) > 9 {
		user = user[:9]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x21 || r > 0x7E {
			return -1
		}
		return r
	}, user)
}

func hostOf(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil || net.ParseIP(h) != nil {
		return ""
	}
	return h
}

// readX224 reads the next TPKT-framed PDU and returns its X.224 payload,
// skipping nothing: during connection only slow-path PDUs are legal.
func (c *Client) readX224(where string) ([]byte, error) {
	kind, _, body, err := readPDU(c.br, c.readBuf)
	if err != nil {
		return nil, err
	}
	if kind != pduX224 {
		return nil, protoErr(where, "fast-path PDU during connection set-up")
	}
	return x224Payload(body)
}

// writeTimeout bounds one write: a server that stops reading must not
// block input calls forever.
const writeTimeout = 10 * time.Second

func (c *Client) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.activated.Load() > 0 {
		// Only once the session runs: during set-up Dial's context rules.
		c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	}
	_, err := c.conn.Write(b)
	if err != nil && c.activated.Load() > 0 {
		// A failed write leaves the TLS stream unusable: end the session
		// so Done and Err tell the caller.
		c.raw.Close()
	}
	return err
}

func (c *Client) sendMCS(b []byte) error { return c.write(x224Data(b)) }

// sendIO sends data on the I/O channel.
func (c *Client) sendIO(b []byte) error { return c.sendMCS(mcsSendData(c.user, c.io, b)) }

func (c *Client) mcsConnect() error {
	cfg := &c.cfg
	var ud []byte
	ud = append(ud, clientCoreData(cfg.Width, cfg.Height, cfg.ColorDepth, cfg.ClientName, c.protocol)...)
	ud = append(ud, clientSecurityData()...)
	var channels []string
	if cfg.Clipboard {
		channels = append(channels, "cliprdr")
	}
	ud = append(ud, clientNetworkData(channels)...)
	if err := c.sendMCS(mcsConnectInitial(gccConferenceCreateRequest(ud))); err != nil {
		return err
	}
	p, err := c.readX224("MCS connect response")
	if err != nil {
		return c.authHint(err)
	}
	c.logf("rdp: MCS connect response")
	sd, err := parseConnectResponse(p)
	if err != nil {
		return err
	}
	c.io, c.msgChan = sd.IOChannel, sd.MsgChannel
	if cfg.Clipboard && len(sd.Channels) > 0 && sd.Channels[0] != 0 {
		c.clip.channel = sd.Channels[0]
	}
	if err := c.sendMCS(mcsErectDomainRequest()); err != nil {
		return err
	}
	if err := c.sendMCS(mcsAttachUserRequest()); err != nil {
		return err
	}
	p, err = c.readX224("MCS attach user confirm")
	if err != nil {
		return err
	}
	if c.user, err = parseAttachUserConfirm(p); err != nil {
		return err
	}
	join := []uint16{c.user, c.io}
	if c.msgChan != 0 {
		join = append(join, c.msgChan)
	}
	if c.clip.channel != 0 {
		join = append(join, c.clip.channel)
	}
	for _, ch := range join {
		if err := c.sendMCS(mcsChannelJoinRequest(c.user, ch)); err != nil {
			return err
		}
		p, err := c.readX224("MCS channel join confirm")
		if err != nil {
			return err
		}
		got, err := parseChannelJoinConfirm(p)
		if err != nil {
			return err
		}
		if got != ch {
			return protoErr("MCS channel join confirm", "joined channel %d, asked for %d", got, ch)
		}
	}
	c.logf("rdp: channels joined")
	return c.sendIO(clientInfo(cfg.User, cfg.Domain, cfg.Password, c.conn.LocalAddr()))
}

// authHint turns a connection closed right after NLA into an AuthError:
// some servers accept CredSSP and then drop a user they cannot log on.
func (c *Client) authHint(err error) error {
	if c.protocol == ProtocolHybrid && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isConnReset(err)) {
		return &AuthError{Msg: "the server closed the connection after NLA (wrong user name or password?)"}
	}
	return err
}

func (c *Client) logf(format string, args ...any) {
	if c.cfg.Logf != nil {
		c.cfg.Logf(format, args...)
	}
}

// earlyUserAuthorization reads the Early User Authorization Result PDU a
// HYBRID_EX server sends after CredSSP: whether this user may log on
// remotely at all (MS-RDPBCGR 2.2.10.2).
func (c *Client) earlyUserAuthorization() error {
	var b [4]byte
	if _, err := io.ReadFull(c.br, b[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isConnReset(err) {
			return &AuthError{Msg: "the server closed the connection after NLA (wrong user name or password?)"}
		}
		return err
	}
	switch v := binary.LittleEndian.Uint32(b[:]); v {
	case 0: // AUTHZ_SUCCESS
		return nil
	case 5: // AUTHZ_ACCESS_DENIED
		return &AuthError{Msg: "the credentials are right, but this user may not log on remotely (add it to the server's Remote Desktop Users)"}
	default:
		return protoErr("early user authorization result", "unknown result 0x%X", v)
	}
}
