package rfb

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/hoptrace"
)

// Config configures a connection. The zero value connects without
// credentials into a fresh framebuffer.
type Config struct {
	Password string // VNC authentication, VeNCrypt Plain/X509Plain, ARD
	Username string // VeNCrypt Plain/X509Plain, ARD
	Shared   bool   // leave other viewers connected

	// Encodings in preference order; nil means DefaultEncodings. The
	// pseudo-encodings this client understands are always added.
	Encodings []int32
	// Framebuffer receives decoded pixels (RGBA, alpha 0xff) with damage.
	// nil allocates one (see Client.Framebuffer).
	Framebuffer *fb.Buffer
	// TLS decides trust in VeNCrypt X509 certificates and wss:// servers.
	TLS *TLSPolicy
	// CertOnly picks any VeNCrypt X509 subtype, credentials or not, and
	// ends the handshake after TLS: for reading the certificate
	// (`dvv hosts trust`), never for a session.
	CertOnly bool
	// Origin is sent as the WebSocket Origin header (ws:// and wss://).
	Origin string
	// HandshakeTimeout bounds dialing plus the whole handshake; 0 means 15 s.
	HandshakeTimeout time.Duration
	// JPEGQuality 1..10 lets Tight send lossy JPEG (quality level
	// JPEGQuality-1); 0 keeps every pixel exact, which screen reading needs.
	JPEGQuality int
	// NoExtendedClipboard keeps the clipboard to Latin-1 cut text.
	NoExtendedClipboard bool
	// NoContinuousUpdates keeps to request/response updates even when the
	// server offers continuous updates.
	NoContinuousUpdates bool

	// ProbeInterval, StallAfter and WriteTimeout tune liveness (see
	// Client.Stalled); 0 means the Default values.
	ProbeInterval, StallAfter, WriteTimeout time.Duration

	OnCutText func(text string, utf8 bool) // the remote clipboard changed
	OnBell    func()
}

// Caps is what the server proved it supports during this connection.
// Entries turn true as the server's confirmations arrive.
type Caps struct {
	Version             string // "3.3", "3.7" or "3.8"
	Security            string // negotiated security type
	Apple               bool   // macOS Screen Sharing
	ExtendedDesktopSize bool
	QEMUKeys            bool
	LEDState            bool // a LED state update has arrived
	LEDs                LEDs // valid when LEDState
	ExtendedClipboard   bool // UTF-8 text through the extended clipboard
	ClipboardMax        int  // server's UTF-8 text limit, when ExtendedClipboard
	ContinuousUpdates   bool
	Fence               bool
	Cursor              bool   // a cursor shape has arrived
	DesktopSizeChanged  bool   // a server-side resize happened
	Updates             uint64 // framebuffer updates received
}

// Client is one RFB connection. Writes are safe from any goroutine; Run
// must be called (once) to read the server's messages.
type Client struct {
	conn net.Conn
	raw  net.Conn // under conn when it is TLS: closed first, so Close never waits on a TLS alert
	r    *reader
	cfg  Config
	buf  *fb.Buffer
	dec  decoder

	wmu    sync.Mutex // serialises writes
	broken bool       // a write failed: the stream is out of step (under wmu)

	mu         sync.Mutex // guards the fields below
	caps       Caps
	name       string
	cursor     Cursor
	clip       string // text we offered through the extended clipboard
	serverClip uint32 // the server's extended clipboard action flags
	contOn     bool   // continuous updates enabled
	ready      bool   // handshake done: later resizes are the server's
	closed     bool

	closeOnce sync.Once
	closing   chan struct{} // closed by Close

	// clipKnown closes once the server's extended clipboard support is
	// known: its caps arrived, or a framebuffer update did (servers send
	// caps in answer to SetEncodings, which goes before the first update
	// request), or the connection ended.
	clipKnown     chan struct{}
	clipKnownOnce sync.Once

	lastRead      atomic.Int64 // unix nanoseconds of the latest bytes from the server
	probing       atomic.Bool  // a liveness probe is being written
	probeInterval time.Duration
	stallAfter    time.Duration
	writeTimeout  time.Duration
}

// Dial connects to "host:port" or a ws:// / wss:// URL and completes the
// handshake. Run must then be called to receive updates.
func Dial(ctx context.Context, address string, cfg *Config) (*Client, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	c, err := dialOnce(ctx, address, cfg, false)
	if errors.Is(err, errAnonTLSOnly) {
		// The server's VeNCrypt offer needs anonymous TLS; if it listed
		// another type we can use, reconnect with that one instead.
		if c2, err2 := dialOnce(ctx, address, cfg, true); err2 == nil {
			return c2, nil
		} else if !errors.Is(err2, ErrUnsupportedSecurity) {
			return nil, err2
		}
	}
	return c, err
}

func dialOnce(ctx context.Context, address string, cfg *Config, avoidVeNCrypt bool) (*Client, error) {
	timeout := cfg.HandshakeTimeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var conn net.Conn
	var err error
	if strings.HasPrefix(address, "ws://") || strings.HasPrefix(address, "wss://") {
		conn, err = dialWebSocket(dctx, address, cfg)
	} else {
		conn, err = keepAliveDialer.DialContext(dctx, "tcp", address)
	}
	if err != nil {
		return nil, err
	}
	return newClient(ctx, conn, cfg, avoidVeNCrypt)
}

// NewClient runs the handshake on an established connection. On failure
// the connection is closed.
func NewClient(ctx context.Context, conn net.Conn, cfg *Config) (*Client, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	return newClient(ctx, conn, cfg, false)
}

func newClient(ctx context.Context, conn net.Conn, cfg *Config, avoidVeNCrypt bool) (*Client, error) {
	timeout := cfg.HandshakeTimeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	conn.SetDeadline(time.Now().Add(timeout))
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	h := newHandshake(conn, cfg)
	h.avoidVeNCrypt = avoidVeNCrypt
	err := h.run()
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		h.conn.Close()
		if ctx.Err() != nil && isTimeout(err) {
			return nil, fmt.Errorf("rfb: handshake: %w", ctx.Err())
		}
		if isTimeout(err) {
			return nil, fmt.Errorf("rfb: handshake did not finish within %v: %w", timeout, err)
		}
		return nil, err
	}
	h.conn.SetDeadline(time.Time{})
	c := &Client{conn: h.conn, raw: h.raw, r: h.r, closing: make(chan struct{}), cfg: *cfg, buf: cfg.Framebuffer, name: h.name,
		probeInterval: orDefault(cfg.ProbeInterval, DefaultProbeInterval),
		stallAfter:    orDefault(cfg.StallAfter, DefaultStallAfter),
		writeTimeout:  orDefault(cfg.WriteTimeout, DefaultWriteTimeout), clipKnown: make(chan struct{})}
	if cfg.NoExtendedClipboard {
		c.settleClip()
	}
	c.lastRead.Store(time.Now().UnixNano())
	c.r.src = &aliveReader{r: c.r.src, last: &c.lastRead}
	if c.buf == nil {
		c.buf = fb.New()
	}
	c.caps.Version = fmt.Sprintf("3.%d", h.minor)
	c.caps.Security = h.security
	c.caps.Apple = h.apple
	c.setupDecoder()
	if err := c.dec.resize(h.width, h.height); err != nil {
		c.conn.Close()
		return nil, err
	}
	if err := c.start(); err != nil {
		c.conn.Close()
		return nil, err
	}
	c.mu.Lock()
	c.ready = true
	c.mu.Unlock()
	return c, nil
}

// keepAliveDialer sets TCP keepalive as the floor under the liveness
// probes: a peer whose machine vanished is found within about 30 s even
// when no probe can be written.
var keepAliveDialer = net.Dialer{KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (c *Client) setupDecoder() {
	d := &c.dec
	d.limit = c.buf
	d.onResize = func(w, h int) {
		if bw, bh := c.buf.Size(); bw != w || bh != h {
			c.buf.Resize(w, h)
		}
		c.mu.Lock()
		if c.ready {
			c.caps.DesktopSizeChanged = true
		}
		c.mu.Unlock()
	}
	d.onCursor = func(cur Cursor) {
		c.mu.Lock()
		c.cursor, c.caps.Cursor = cur, true
		c.mu.Unlock()
	}
	d.onLEDs = func(l LEDs) {
		c.mu.Lock()
		c.caps.LEDState, c.caps.LEDs = true, l
		c.mu.Unlock()
	}
	d.onName = func(n string) {
		c.mu.Lock()
		c.name = n
		c.mu.Unlock()
	}
	d.onExtDesktop = func() {
		c.mu.Lock()
		c.caps.ExtendedDesktopSize = true
		c.mu.Unlock()
	}
	d.onQEMUKeys = func() {
		c.mu.Lock()
		c.caps.QEMUKeys = true
		c.mu.Unlock()
	}
}

// start sets our pixel format and encodings and asks for the first frame.
func (c *Client) start() error {
	// 32 bpp, depth 24, little-endian true colour, R at bit 0, G at 8, B
	// at 16: the bytes of a pixel are R, G, B, X, as in image.RGBA.
	pf := []byte{cmsgSetPixelFormat, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0}
	encs := c.cfg.Encodings
	if encs == nil {
		encs = DefaultEncodings
	}
	encs = append(append([]int32(nil), encs...), pseudoEncodings...)
	if c.cfg.NoExtendedClipboard {
		encs = slices.DeleteFunc(encs, func(e int32) bool { return e == EncExtendedClipboard })
	}
	if q := c.cfg.JPEGQuality; q >= 1 && q <= 10 {
		encs = append(encs, EncTightQuality0+int32(q-1))
	}
	msg := append(pf, cmsgSetEncodings, 0, byte(len(encs)>>8), byte(len(encs)))
	for _, e := range encs {
		msg = append(msg, byte(e>>24), byte(e>>16), byte(e>>8), byte(e))
	}
	w, h := c.dec.s.w, c.dec.s.h
	msg = append(msg, updateRequest(false, 0, 0, w, h)...)
	return c.send(msg)
}

func updateRequest(incremental bool, x, y, w, h int) []byte {
	inc := byte(0)
	if incremental {
		inc = 1
	}
	return []byte{cmsgUpdateRequest, inc, byte(x >> 8), byte(x), byte(y >> 8), byte(y),
		byte(w >> 8), byte(w), byte(h >> 8), byte(h)}
}

// send writes one or more whole messages; writes never interleave. A
// write that fails (its deadline passed, the peer reset) may have sent part
// of a message, after which the server would misread every later byte: the
// connection is closed, so Run returns and no later call reports success
// on a dead stream.
func (c *Client) send(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.broken {
		return errBrokenStream
	}
	c.conn.SetWriteDeadline(time.Now().Add(c.writeTimeout))
	_, err := c.conn.Write(b)
	if err != nil {
		c.broken = true
		c.raw.Close()
		c.conn.Close()
	}
	return err
}

// errBrokenStream answers writes after one failed part-way.
var errBrokenStream = errors.New("rfb: an earlier write failed; the connection was dropped")

// Framebuffer is the buffer this client writes into.
func (c *Client) Framebuffer() *fb.Buffer { return c.buf }

// Encodings counts the rectangles received per encoding (pseudo-encodings
// such as Cursor and DesktopSize included), by name.
func (c *Client) Encodings() map[string]uint64 { return c.dec.used.snapshot() }

// DesktopName is the server's name for the desktop.
func (c *Client) DesktopName() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// Capabilities reports what the server has proved it supports so far.
func (c *Client) Capabilities() Caps {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caps
}

// Cursor is the latest cursor shape (Image nil until one arrives).
func (c *Client) Cursor() Cursor {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cursor
}

// Close ends the connection; Run returns.
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		close(c.closing)
		err = c.raw.Close()
		if c.conn != c.raw {
			c.conn.Close()
		}
	})
	return err
}

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("rfb: client closed")

// Run reads server messages until the connection fails or Close is
// called, and keeps the framebuffer up to date. It returns the reason:
// ErrClosed, a network error (io.EOF when the server hung up), or a
// *ProtocolError, after which the connection is closed.
func (c *Client) Run() error {
	done := make(chan struct{})
	defer close(done)
	go c.watch(done)
	err := c.loop()
	c.dec.s.free() // the loop was its only user: nothing draws from it again
	c.settleClip()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	c.Close()
	if closed {
		return ErrClosed
	}
	return err
}

func (c *Client) loop() error {
	var t [1]byte
	for {
		// Read the type byte outside the sticky reader: an end of stream
		// here is a clean hang-up, not a truncated message.
		if _, err := io.ReadFull(c.r.src, t[:]); err != nil {
			if err == io.EOF {
				return fmt.Errorf("rfb: server closed the connection: %w", io.EOF)
			}
			return err
		}
		c.r.n++
		if t[0] == msgFramebufferUpdate {
			hoptrace.Mark(c.buf, "read")
		}
		if err := c.message(t[0]); err != nil {
			return err
		}
	}
}

func (c *Client) message(t byte) error {
	r := c.r
	switch t {
	case msgFramebufferUpdate:
		if c.dec.damage == nil {
			c.dec.damage = make([]image.Rectangle, 0, 16)
		}
		if err := c.dec.readUpdate(r); err != nil {
			return err
		}
		hoptrace.Mark(c.buf, "decoded")
		work := 0
		for _, rc := range c.dec.damage {
			work += rc.Dx() * rc.Dy()
		}
		for _, f := range c.dec.fills {
			work += f.R.Dx() * f.R.Dy()
		}
		c.flush()
		hoptrace.Mark(c.buf, "published")
		// Past the buffer's decode budget this pauses reading, so a flood
		// of cheap whole-screen updates cannot take a core.
		// (Reading and decoding interleave here, so only pixels count.)
		c.buf.SpendDecode(work, 0, c.closing)
		c.mu.Lock()
		c.caps.Updates++
		cont := c.contOn
		c.mu.Unlock()
		c.settleClip()
		if !cont {
			return c.send(updateRequest(true, 0, 0, c.dec.s.w, c.dec.s.h))
		}
		return nil
	case msgSetColourMapEntries:
		r.u8()
		r.u16()
		n := int(r.u16())
		r.skip(6 * n)
		return r.err
	case msgBell:
		if c.cfg.OnBell != nil {
			c.cfg.OnBell()
		}
		return nil
	case msgServerCutText:
		return c.serverCutText()
	case msgEndOfContinuous:
		return c.endOfContinuous()
	case msgServerFence:
		return c.serverFence()
	}
	return protoErr("unknown server message type %d", t)
}

// flush copies the damaged rectangles of the finished update into the
// shared framebuffer in one short critical section. Fills are painted
// first, in the order received, then the rest is copied from the surface
// (its final state, whatever the order), and the fills are handed on as
// such: readers forwarding the picture need not read them back.
func (c *Client) flush() {
	d := &c.dec
	// A surface kept bigger than its desktop through a burst of resizes
	// is given back once the size has held.
	d.s.pix = fb.Trim(d.s.pix, d.s.resized)
	if len(d.damage) == 0 && len(d.fills) == 0 {
		return
	}
	pix, stride, w, h := c.buf.BeginWrite()
	if w != d.s.w || h != d.s.h {
		c.buf.EndWrite()
		c.buf.Resize(d.s.w, d.s.h)
		pix, stride, _, _ = c.buf.BeginWrite()
		d.damage, d.fills = append(d.damage[:0], d.s.bounds()), d.fills[:0]
	}
	for _, f := range d.fills {
		fillRows(pix, stride, f)
	}
	for _, rc := range d.damage {
		for y := rc.Min.Y; y < rc.Max.Y; y++ {
			o := y*stride + rc.Min.X*4
			copy(pix[o:o+rc.Dx()*4], d.s.row(rc.Min.X, y, rc.Dx()))
		}
	}
	c.buf.EndWriteFills(d.damage, d.fills)
	d.damage, d.fills = d.damage[:0], d.fills[:0]
}

// fillRows paints f into pixels of stride bytes a row.
func fillRows(pix []byte, stride int, f fb.Fill) {
	r := f.R
	first := pix[r.Min.Y*stride+r.Min.X*4 : r.Min.Y*stride+r.Max.X*4]
	for i := 0; i < len(first); i += 4 {
		copy(first[i:i+4], f.C[:])
	}
	for y := r.Min.Y + 1; y < r.Max.Y; y++ {
		copy(pix[y*stride+r.Min.X*4:], first)
	}
}

func (c *Client) endOfContinuous() error {
	c.mu.Lock()
	c.caps.ContinuousUpdates = true
	was := c.contOn
	enable := !was && !c.cfg.NoContinuousUpdates
	c.contOn = enable
	c.mu.Unlock()
	if enable {
		w, h := c.dec.s.w, c.dec.s.h
		return c.send([]byte{cmsgEnableContinuous, 1, 0, 0, 0, 0, byte(w >> 8), byte(w), byte(h >> 8), byte(h)})
	}
	if was { // the server stopped them: go back to asking
		return c.send(updateRequest(true, 0, 0, c.dec.s.w, c.dec.s.h))
	}
	return nil
}

const (
	fenceBlockBefore = 1 << 0
	fenceBlockAfter  = 1 << 1
	fenceSyncNext    = 1 << 2
	fenceRequest     = 1 << 31
)

func (c *Client) serverFence() error {
	r := c.r
	r.bytes(3)
	flags := r.u32()
	n := int(r.u8())
	if r.err != nil {
		return r.err
	}
	if n > 64 {
		return protoErr("fence payload of %d bytes", n)
	}
	payload := append([]byte(nil), r.bytes(n)...)
	if r.err != nil {
		return r.err
	}
	c.mu.Lock()
	c.caps.Fence = true
	c.mu.Unlock()
	if flags&fenceRequest != 0 {
		// Everything before the fence is already processed (we are
		// sequential), so answering at once honours every flag.
		reply := flags & (fenceBlockBefore | fenceBlockAfter | fenceSyncNext)
		msg := []byte{cmsgClientFence, 0, 0, 0, byte(reply >> 24), byte(reply >> 16), byte(reply >> 8), byte(reply), byte(n)}
		if err := c.send(append(msg, payload...)); err != nil {
			return err
		}
	}
	return nil
}
