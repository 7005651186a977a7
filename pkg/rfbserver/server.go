// Package rfbserver serves a framebuffer mirror (pkg/fb) to any VNC viewer
// as an RFB 3.8 server: None or VNC authentication, Raw, CopyRect (scrolls
// found by comparing with what the viewer already has), ZRLE, Tight (with
// JPEG for photographic areas when the viewer names a quality), DesktopSize
// and a Cursor shape. Updates are pull-based: one per viewer request,
// covering everything that changed since the last one, so a slow viewer
// sees fewer frames and never makes the writer of the mirror wait.
//
// It knows nothing of who may drive the machine: input is handed to the
// Input the caller gives, or dropped for a view-only session.
package rfbserver

import (
	"bufio"
	"context"
	"crypto/des"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math/bits"
	"net"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/hoptrace"
)

// Input receives a viewer's input events, already bounds-checked against
// the framebuffer.
type Input interface {
	Pointer(x, y int, buttons uint8)
	Key(keysym uint32, down bool)
	CutText(text string)
}

// Config describes one viewer session.
type Config struct {
	Buffer *fb.Buffer
	Name   string // desktop name shown by the viewer
	// Auth, when set, requires VNC authentication: it gets the challenge
	// sent and the viewer's response and reports whether they match a
	// password (see CheckVNCAuth), and whether that password only lets the
	// viewer watch. nil offers security type None.
	Auth func(challenge, response []byte) (ok, viewOnly bool)
	// Gate, when set, is asked after the version exchange whether this
	// viewer may try at all; an error refuses it with the error's text as
	// the reason (how a server that blacklists a peer answers).
	Gate func() error
	// HandshakeTimeout bounds the whole handshake: a viewer that does not
	// finish it in time is dropped. 0 means 30 s.
	HandshakeTimeout time.Duration
	// ViewOnly drops every input event (and Input is never called).
	ViewOnly bool
	Input    Input
	// WriteTimeout bounds one update's write; a viewer that reads nothing
	// for this long is disconnected. 0 means 30 s.
	WriteTimeout time.Duration
	// Cursor is the pointer shape sent to viewers that ask for one; nil
	// sends a plain arrow.
	Cursor *Cursor
	// CursorShape, when set, is the machine's live pointer shape (nil
	// while it has none): viewers get each new shape as it changes.
	CursorShape func() *Cursor
	// OnUpdate, when set, is told the bytes of every update written
	// (measurements).
	OnUpdate func(bytes int)
}

// Encodings and pseudo-encodings this server speaks.
const (
	encRaw         int32 = 0
	encCopyRect    int32 = 1
	encTight       int32 = 7
	encZRLE        int32 = 16
	encQuality0    int32 = -32  // Tight JPEG quality level 0 (..9 is -23)
	encCompress0   int32 = -256 // Tight zlib level 0 (..9 is -247)
	encDesktopSize int32 = -223
	encCursor      int32 = -239
	encExtDesktop  int32 = -308
	encFence       int32 = -312
	encContinuous  int32 = -313
)

// Frame pacing: 60 updates a second on average (Xvnc's default cap, what
// a screen shows), with a burst of a few at once, so a change that reaches
// the mirror in two pieces (a first small update, then the rest) is not
// held back a frame.
const (
	minUpdateInterval = time.Second / 60
	updateBurst       = 3
)

// pacer is a token bucket of updates.
type pacer struct {
	tokens float64
	at     time.Time
}

func (p *pacer) refill(now time.Time, interval time.Duration) {
	if p.at.IsZero() {
		p.tokens = updateBurst
	} else {
		p.tokens = min(updateBurst, p.tokens+float64(now.Sub(p.at))/float64(interval))
	}
	p.at = now
}

func (p *pacer) spend(now time.Time, interval time.Duration) {
	p.refill(now, interval)
	p.tokens--
}

// wait is how long until the next update may go, at one update per
// interval.
func (p *pacer) wait(now time.Time, interval time.Duration) time.Duration {
	p.refill(now, interval)
	if p.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - p.tokens) * float64(interval))
}

// cursorPollEvery is how often a live cursor shape is checked for a new one.
const cursorPollEvery = 100 * time.Millisecond

// maxCutText bounds a viewer's clipboard message.
const maxCutText = 1 << 20

// ErrAuth is returned when a viewer's VNC authentication fails.
var ErrAuth = errors.New("rfbserver: authentication failed")

// ErrRefused is returned when Config.Gate turned a viewer away.
var ErrRefused = errors.New("rfbserver: viewer refused")

// Serve runs one viewer session on conn until the viewer leaves, ctx ends
// or an error occurs. It closes conn.
func Serve(ctx context.Context, conn net.Conn, cfg Config) error {
	defer conn.Close()
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	s := &session{cfg: cfg, conn: conn, r: bufio.NewReader(conn), pf: defaultFormat, wake: make(chan struct{}, 1)}
	if cfg.HandshakeTimeout == 0 {
		cfg.HandshakeTimeout = 30 * time.Second
	}
	conn.SetDeadline(time.Now().Add(cfg.HandshakeTimeout))
	if err := s.handshake(ctx); err != nil {
		return err
	}
	conn.SetDeadline(time.Time{})
	sessionStarted()
	defer sessionEnded()
	s.tracker = cfg.Buffer.NewTracker()
	defer s.tracker.Close()
	readErr := make(chan error, 1)
	readDone := make(chan struct{})
	go func() { defer close(readDone); readErr <- s.readLoop() }()
	// Input is never delivered after Serve returns: the caller may then
	// account for the session as ended.
	defer func() { conn.Close(); <-readDone }()
	var cursorPoll <-chan time.Time
	if cfg.CursorShape != nil {
		// A new pointer shape alone (hovering a link) damages no pixel.
		t := time.NewTicker(cursorPollEvery)
		defer t.Stop()
		cursorPoll = t.C
	}
	s.hub = joinHub(cfg.Buffer)
	defer s.hub.leave()
	pace := time.NewTimer(0)
	defer pace.Stop()
	var bucket pacer
	for {
		now := time.Now()
		interval := updateInterval(now)
		wait := s.onTick(now, bucket.wait(now, interval), interval)
		if wait > 0 {
			// What changes meanwhile goes in the next update; input is
			// read all the while.
			pace.Reset(wait)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case err := <-readErr:
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			case <-pace.C:
			}
			continue
		}
		// Taken before looking for damage: a change landing after the look
		// closes this one and wakes the session.
		changed := cfg.Buffer.Changed()
		before := s.updates
		if err := s.maybeUpdate(); err != nil {
			return err
		}
		if s.updates != before {
			bucket.spend(now, interval)
			continue // the pacing again before waiting for a change
		}
		select {
		case <-cursorPoll:
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case <-s.wake:
		case <-changed:
		}
		hoptrace.Mark(s, "woken")
	}
}

// session is one viewer's state. mu guards what the reader sets and the
// writer reads.
type session struct {
	cfg     Config
	conn    net.Conn
	r       *bufio.Reader
	tracker *fb.Tracker
	wake    chan struct{}

	mu         sync.Mutex
	pf         PixelFormat
	pfChanged  bool
	encodings  []int32
	want       bool // a FramebufferUpdateRequest is waiting
	full       bool // a non-incremental one: send everything
	cursorSent bool
	cursorImg  *image.RGBA // the shape last sent, to notice a new one
	// Continuous updates (for viewers that speak them and fences): updates
	// are pushed as the mirror changes, each followed by a fence; at most
	// maxInFlight updates go unanswered, so a slow viewer still gets fewer,
	// larger updates and nothing queues.
	cuAnnounced bool
	cuOffered   bool // EndOfContinuousUpdates is due (support announced)
	cuEnded     bool // the viewer turned them off: EndOfContinuousUpdates is due
	cont        bool
	inFlight    int
	// ExtendedDesktopSize: the screen layout is announced once (so the
	// viewer knows it is supported) and on every resize, and each
	// SetDesktopSize is answered "prohibited": the desktop's size belongs to
	// the machine, not to one viewer.
	extSent     bool
	resizeAsked int

	hub *mirrorHub // the mirror's sessions, sharing encodings

	updates int           // updates written, the writer's
	enc     encoder       // the writer's only
	lent    []*encoder    // helpers whose bytes are not yet written (parallel.go)
	w       *bufio.Writer // the writer's, made at the first update
}

func (s *session) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// handshake runs RFB's opening: the version, the gate, the security
// type and its authentication, ClientInit and ServerInit.
func (s *session) handshake(ctx context.Context) error {
	if err := s.waitForSize(ctx); err != nil {
		return err
	}
	minor, err := s.version()
	if err != nil {
		return err
	}
	if s.cfg.Gate != nil {
		if err := s.cfg.Gate(); err != nil {
			s.refuse(minor, err.Error())
			return fmt.Errorf("%w: %v", ErrRefused, err)
		}
	}
	secType := byte(1)
	if s.cfg.Auth != nil {
		secType = 2
	}
	if err := s.offerSecurity(minor, secType); err != nil {
		return err
	}
	if secType == 2 {
		if err := s.authenticate(minor); err != nil {
			return err
		}
	}
	if secType == 2 || minor >= 8 {
		if err := writeU32(s.conn, 0); err != nil {
			return err
		}
	}
	return s.serverInit()
}

// waitForSize waits until the mirror has a size: a limb still connecting
// has none yet.
func (s *session) waitForSize(ctx context.Context) error {
	for {
		if w, h := s.cfg.Buffer.Size(); w > 0 && h > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.cfg.Buffer.Changed():
		case <-time.After(time.Second):
		}
	}
}

// version sends the server's protocol version and reads the viewer's
// minor version.
func (s *session) version() (int, error) {
	if _, err := io.WriteString(s.conn, "RFB 003.008\n"); err != nil {
		return 0, err
	}
	v := make([]byte, 12)
	if _, err := io.ReadFull(s.r, v); err != nil {
		return 0, err
	}
	var minor int
	if _, err := fmt.Sscanf(string(v), "RFB 003.%03d\n", &minor); err != nil {
		return 0, fmt.Errorf("rfbserver: not an RFB viewer (version %q)", v)
	}
	return minor, nil
}

// offerSecurity offers the one security type (3.3: announces it) and
// reads the viewer's choice.
func (s *session) offerSecurity(minor int, secType byte) error {
	if minor < 7 { // 3.3: the server decides
		return writeU32(s.conn, uint32(secType))
	}
	if _, err := s.conn.Write([]byte{1, secType}); err != nil {
		return err
	}
	chosen, err := s.r.ReadByte()
	if err != nil {
		return err
	}
	if chosen != secType {
		return s.fail(minor, fmt.Sprintf("security type %d was not offered", chosen))
	}
	return nil
}

// authenticate runs VNC authentication's challenge against the share's
// one-time password; a password may make the session view-only.
func (s *session) authenticate(minor int) error {
	challenge := make([]byte, 16)
	rand.Read(challenge)
	if _, err := s.conn.Write(challenge); err != nil {
		return err
	}
	resp := make([]byte, 16)
	if _, err := io.ReadFull(s.r, resp); err != nil {
		return err
	}
	ok, viewOnly := s.cfg.Auth(challenge, resp)
	if !ok {
		s.fail(minor, "authentication failed: the one-time password is wrong or was already used")
		return ErrAuth
	}
	s.cfg.ViewOnly = s.cfg.ViewOnly || viewOnly
	return nil
}

// serverInit reads ClientInit (its shared flag: sessions are always
// shared) and sends the desktop's size, pixel format and name.
func (s *session) serverInit() error {
	if _, err := s.r.ReadByte(); err != nil {
		return err
	}
	w, h := s.cfg.Buffer.Size()
	msg := make([]byte, 4, 24+len(s.cfg.Name))
	binary.BigEndian.PutUint16(msg[0:], uint16(w))
	binary.BigEndian.PutUint16(msg[2:], uint16(h))
	msg = append(msg, defaultFormat.bytes()...)
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(s.cfg.Name)))
	msg = append(msg, s.cfg.Name...)
	s.enc.w, s.enc.h = 0, 0 // the first update sends everything
	_, err := s.conn.Write(msg)
	return err
}

// fail tells the viewer why (3.8 carries a reason) and gives up.
func (s *session) fail(minor int, reason string) error {
	writeU32(s.conn, 1)
	if minor >= 8 {
		writeU32(s.conn, uint32(len(reason)))
		io.WriteString(s.conn, reason)
	}
	return errors.New("rfbserver: " + reason)
}

// refuse offers no security type and says why: a zero count, then the
// reason (3.3 announces the same as a zero type).
func (s *session) refuse(minor int, reason string) {
	if minor < 7 {
		writeU32(s.conn, 0)
	} else {
		s.conn.Write([]byte{0})
	}
	writeU32(s.conn, uint32(len(reason)))
	io.WriteString(s.conn, reason)
}

func writeU32(w io.Writer, v uint32) error {
	_, err := w.Write(binary.BigEndian.AppendUint32(nil, v))
	return err
}

// VNCAuthResponse is the answer a viewer knowing password gives to
// challenge: DES with the password (8 bytes at most) as key, each key byte
// bit-reversed as VNC has always done.
func VNCAuthResponse(password string, challenge []byte) []byte {
	var key [8]byte
	copy(key[:], password)
	for i, b := range key {
		key[i] = bits.Reverse8(b)
	}
	c, _ := des.NewCipher(key[:]) // an 8-byte key cannot fail
	out := make([]byte, 16)
	c.Encrypt(out[:8], challenge[:8])
	c.Encrypt(out[8:], challenge[8:16])
	return out
}

// CheckVNCAuth reports whether response answers challenge for password, in
// constant time.
func CheckVNCAuth(password string, challenge, response []byte) bool {
	return subtle.ConstantTimeCompare(VNCAuthResponse(password, challenge), response) == 1
}
