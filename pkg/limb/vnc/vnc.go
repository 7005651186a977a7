// Package vnc is the desktop limb over RFB: it wraps pkg/rfb, implements
// limb.Desktop and turns failures into coded *wire.Error values.
package vnc

import (
	"context"
	"errors"
	"image"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/keys"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/limb/pins"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// DefaultPort is used when the target names none.
const DefaultPort = 5900

var _ limb.DesktopDialer = Dial

// Address returns what Dial connects to: the ws:// or wss:// URL as given,
// or host:port.
func Address(t limb.Target) string {
	if strings.HasPrefix(t.Address, "ws://") || strings.HasPrefix(t.Address, "wss://") {
		return t.Address
	}
	port := t.Port
	if port == 0 {
		port = DefaultPort
	}
	return net.JoinHostPort(t.Address, strconv.Itoa(port))
}

// certPolicy checks the server's certificate against the pin file.
func certPolicy(hostport string) *rfb.TLSPolicy {
	return &rfb.TLSPolicy{Verify: func(der []byte) error {
		fp := rfb.Fingerprint(der)
		pinned, ok, err := pins.Lookup(hostport)
		if err != nil {
			return err
		}
		switch {
		case !ok:
			return &rfb.UnknownCertError{Fingerprint: fp}
		case !strings.EqualFold(pinned, fp):
			return &rfb.CertChangedError{Fingerprint: fp, Pinned: pinned}
		}
		return nil
	}}
}

type desktop struct {
	c      *rfb.Client
	addr   string
	done   chan struct{}
	err    error
	bells  int
	mu     sync.Mutex
	clip   string
	clipIn limb.ClipboardInfo
	clipOK bool

	shiftOn   int             // shift keys the caller holds (QEMU key events)
	autoShift map[uint32]bool // keysyms wrapped in a Shift of our own
}

// Options tune Dial. The zero value is what the daemon uses.
type Options struct {
	// WriteTimeout bounds one write to the server (0: rfb's default).
	WriteTimeout time.Duration
}

// Dial connects a VNC desktop that writes into buf. It returns once the
// handshake is done.
func Dial(ctx context.Context, t limb.Target, buf *fb.Buffer) (limb.Desktop, error) {
	return Options{}.Dial(ctx, t, buf)
}

// Dial connects with these options (a limb.DesktopDialer).
func (o Options) Dial(ctx context.Context, t limb.Target, buf *fb.Buffer) (limb.Desktop, error) {
	// slot > 0 never reaches here: dvvd refuses it for VNC from the
	// protocol table (wire.Protocols: no slots).
	addr := Address(t)
	d := &desktop{addr: addr, done: make(chan struct{})}
	cfg := &rfb.Config{
		Password: t.Password, Username: t.User, Shared: true, Framebuffer: buf,
		TLS: certPolicy(hostPort(addr)), WriteTimeout: o.WriteTimeout,
		OnCutText: func(text string, utf8 bool) {
			via := "latin1"
			if utf8 {
				via = "extended-utf8"
			}
			d.mu.Lock()
			d.clip, d.clipIn, d.clipOK = text, limb.ClipboardInfo{Via: via}, true
			d.mu.Unlock()
		},
		OnBell: func() {
			d.mu.Lock()
			d.bells++
			d.mu.Unlock()
		},
	}
	if strings.HasPrefix(addr, "ws") {
		cfg.Origin = "http://" + hostPort(addr)
	}
	c, err := rfb.Dial(ctx, addr, cfg)
	if err != nil {
		return nil, mapError(err, addr)
	}
	d.c = c
	go func() {
		err := c.Run()
		d.mu.Lock()
		if err != rfb.ErrClosed {
			d.err = mapError(err, addr)
		}
		d.mu.Unlock()
		close(d.done)
	}()
	return d, nil
}

// hostPort is the host:port a URL or address names, the key for pins.
func hostPort(addr string) string {
	for _, p := range []string{"ws://", "wss://"} {
		if rest, ok := strings.CutPrefix(addr, p); ok {
			hp, _, _ := strings.Cut(rest, "/")
			if _, _, err := net.SplitHostPort(hp); err != nil {
				port := "80"
				if p == "wss://" {
					port = "443"
				}
				hp = net.JoinHostPort(hp, port)
			}
			return hp
		}
	}
	return addr
}

func (d *desktop) Done() <-chan struct{} { return d.done }

func (d *desktop) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

func (d *desktop) Close() error {
	err := d.c.Close()
	<-d.done
	return err
}

func (d *desktop) DesktopName() string { return d.c.DesktopName() }

// CursorShape is the pointer shape the server last sent.
func (d *desktop) CursorShape() (*image.RGBA, image.Point) {
	c := d.c.Cursor()
	return c.Image, c.Hotspot
}

// Stalled reports a server that stopped answering (limb.Liveness).
func (d *desktop) Stalled() (bool, time.Duration) { return d.c.Stalled() }

func (d *desktop) Pointer(x, y int, b limb.Buttons) error {
	if x < 0 || y < 0 || x > 0xffff || y > 0xffff {
		return wire.Errorf(wire.OutOfBounds, "pointer position (%d,%d) is outside the framebuffer", x, y)
	}
	return d.sendErr(d.c.PointerEvent(uint8(b), uint16(x), uint16(y)))
}

func (d *desktop) Key(keysym uint32, down bool) error {
	if d.c.Capabilities().Apple {
		// macOS maps Command to what X calls Super; Meta means nothing there.
		switch keysym {
		case keys.XK_Meta_L:
			keysym = keys.XK_Super_L
		case keys.XK_Meta_R:
			keysym = keys.XK_Super_R
		}
	}
	if d.c.SupportsQEMUKeys() {
		if code, shift, ok := keys.Scancode(keysym); ok {
			return d.scancodeKey(keysym, uint32(code), shift, down)
		}
	}
	return d.sendErr(d.c.KeyEvent(keysym, down))
}

// scancodeKey sends a QEMU key event. A scan code carries no case: a
// keysym that needs Shift ('A', '!') is wrapped in a Shift press unless the
// caller already holds one, as a keyboard user would.
func (d *desktop) scancodeKey(keysym, code uint32, shift, down bool) error {
	d.mu.Lock()
	if keysym == keys.XK_Shift_L || keysym == keys.XK_Shift_R {
		if down {
			d.shiftOn++
		} else if d.shiftOn > 0 {
			d.shiftOn--
		}
	}
	if d.autoShift == nil {
		d.autoShift = map[uint32]bool{}
	}
	wrap := d.autoShift[keysym]
	if down {
		wrap = shift && d.shiftOn == 0
		d.autoShift[keysym] = wrap
	} else {
		delete(d.autoShift, keysym)
	}
	d.mu.Unlock()
	lshift := uint32(scancodeLShift)
	if wrap && down {
		if err := d.c.QEMUKeyEvent(keys.XK_Shift_L, lshift, true); err != nil {
			return d.sendErr(err)
		}
	}
	err := d.c.QEMUKeyEvent(keysym, code, down)
	if wrap && !down && err == nil {
		err = d.c.QEMUKeyEvent(keys.XK_Shift_L, lshift, false)
	}
	return d.sendErr(err)
}

// scancodeLShift is the left Shift key's scan code.
const scancodeLShift = 0x2a

// TypeRune presses and releases the key for r, holding Shift where a US
// layout needs it, so both keysym-driven servers (Xvnc, x11vnc) and
// scan-code-driven ones (QEMU) produce exactly r.
func (d *desktop) TypeRune(r rune) error {
	sym, shift := keys.RuneKeysym(r)
	if sym == 0 {
		return wire.Errorf(wire.BadRequest, "character %U cannot be typed (a control character); use key with a key name", r)
	}
	if shift {
		if err := d.Key(keys.XK_Shift_L, true); err != nil {
			return err
		}
	}
	err := d.Key(sym, true)
	if err == nil {
		err = d.Key(sym, false)
	}
	if shift {
		if e := d.Key(keys.XK_Shift_L, false); err == nil {
			err = e
		}
	}
	return err
}

// scancodeOnly reports a server that turns every key into a scan code on
// its own keymap (QEMU): a keysym with no key there is dropped. TigerVNC
// also takes QEMU key events but types any keysym it is sent, so it is told
// apart by the name QEMU always gives its desktop ("QEMU" or "QEMU (name)").
func (d *desktop) scancodeOnly() bool {
	return d.c.SupportsQEMUKeys() && strings.HasPrefix(d.c.DesktopName(), "QEMU")
}

// CheckRune refuses, before anything is sent, a character a scan-code
// server (QEMU) has no key for: it would drop it silently.
// (limb.RuneChecker; keysym servers take any keysym.)
func (d *desktop) CheckRune(r rune) error {
	sym, _ := keys.RuneKeysym(r)
	if sym == 0 {
		return wire.Errorf(wire.BadRequest, "character %U cannot be typed (a control character); use key with a key name", r)
	}
	if d.scancodeOnly() {
		if _, _, ok := keys.Scancode(sym); !ok {
			return wire.Errorf(wire.NotImplemented, "this VNC server takes keys as scan codes and %q has no key on a US keyboard", r)
		}
	}
	return nil
}

func (d *desktop) SetClipboard(text string) (limb.ClipboardInfo, error) {
	dropped, utf8, err := d.c.CutText(text)
	info := limb.ClipboardInfo{Via: "latin1", Dropped: dropped,
		Unconfirmed: "RFB has no acknowledgement for clipboard text: read it back with clipboard get, or paste and read the screen"}
	if utf8 {
		info.Via = "extended-utf8"
	}
	return info, d.sendErr(err)
}

func (d *desktop) Clipboard() (string, limb.ClipboardInfo, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.clip, d.clipIn, d.clipOK
}

// sendErr maps a failed write: the session is gone or going.
func (d *desktop) sendErr(err error) error {
	if err == nil {
		return nil
	}
	select {
	case <-d.done:
		if e := d.Err(); e != nil {
			return e
		}
	default:
	}
	return wire.Errorf(wire.NotConnected, "VNC connection to %s failed while sending: %v", d.addr, err)
}

func (d *desktop) Signals() wire.Signals {
	caps := d.c.Capabilities()
	d.mu.Lock()
	bells := d.bells
	d.mu.Unlock()
	s := wire.Signals{}
	live := func(v map[string]any) wire.Signal { return wire.Signal{State: wire.SignalLive, Value: v} }
	absent := func(why string) wire.Signal { return wire.Signal{State: wire.SignalAbsent, Reason: why} }
	unknown := func(why string) wire.Signal { return wire.Signal{State: wire.SignalUnknown, Reason: why} }
	switch {
	case caps.LEDState:
		s[wire.SigLEDState] = live(map[string]any{"caps": caps.LEDs.Caps, "num": caps.LEDs.Num, "scroll": caps.LEDs.Scroll})
	case caps.Updates == 0:
		s[wire.SigLEDState] = unknown("no LED update yet")
	default:
		s[wire.SigLEDState] = absent("server does not offer LED state")
	}
	if caps.ExtendedClipboard {
		s[wire.SigClipboard] = live(map[string]any{"via": "extended-utf8"})
	} else {
		s[wire.SigClipboard] = live(map[string]any{"via": "latin1"})
	}
	switch {
	case caps.ExtendedDesktopSize || caps.DesktopSizeChanged:
		s[wire.SigDesktopResize] = live(nil)
	default:
		s[wire.SigDesktopResize] = unknown("server has not confirmed resize notifications; DesktopSize was requested")
	}
	switch {
	case caps.Cursor:
		s[wire.SigCursorShape] = live(nil)
	case caps.Updates == 0:
		s[wire.SigCursorShape] = unknown("no update yet")
	default:
		s[wire.SigCursorShape] = unknown("no cursor shape received; the server may draw the cursor into the framebuffer")
	}
	if caps.QEMUKeys {
		s[wire.SigKeyScancodes] = live(nil)
	} else if caps.Updates == 0 {
		s[wire.SigKeyScancodes] = unknown("no update yet")
	} else {
		s[wire.SigKeyScancodes] = absent("server does not offer QEMU extended key events; keys travel as keysyms")
	}
	if caps.ContinuousUpdates {
		s[wire.SigContinuous] = live(nil)
	} else if caps.Updates == 0 {
		s[wire.SigContinuous] = unknown("no update yet")
	} else {
		s[wire.SigContinuous] = absent("server does not offer continuous updates; updates are requested one by one")
	}
	s[wire.SigBell] = live(map[string]any{"count": bells})
	s[wire.SigSession] = live(map[string]any{"rfb": caps.Version, "security": caps.Security,
		"encodings": d.c.Encodings(), "desktopName": d.c.DesktopName()})
	s[wire.SigDecodeBudget] = limb.DecodeBudgetSignal(d.c.Framebuffer())
	s[wire.SigWindowStructure] = absent("RFB carries no window structure")
	return s
}

func withFingerprint(fp string, e *wire.Error) *wire.Error {
	e.Fingerprint = fp
	return e
}

// mapError turns an rfb or network failure into a coded error.
func mapError(err error, addr string) error {
	if err == nil {
		return nil
	}
	var (
		auth    *rfb.AuthError
		unsup   *rfb.UnsupportedSecurityError
		unknown *rfb.UnknownCertError
		changed *rfb.CertChangedError
		proto   *rfb.ProtocolError
		server  *rfb.ServerError
		we      *wire.Error
	)
	hp := hostPort(addr)
	switch {
	case errors.As(err, &we):
		return we
	case errors.As(err, &auth):
		return wire.Errorf(wire.AuthFailed, "VNC server %s refused the credentials: %s", addr, auth.Reason)
	case errors.As(err, &unsup):
		return wire.Errorf(wire.Unsupported, "VNC server %s offers only security types this client cannot speak (%s). %s",
			addr, strings.Join(unsup.Offered, ", "), unsup.Hint)
	case errors.As(err, &unknown):
		e := wire.Errorf(wire.HostKeyUnknown, "the TLS certificate of VNC server %s is not trusted yet; its SHA-256 fingerprint is %s. "+
			"If that is right, run `%s`", addr, unknown.Fingerprint, pins.TrustCommand(hp, wire.ProtoVNC, unknown.Fingerprint))
		e.Fingerprint = unknown.Fingerprint
		e.Next = "Check the fingerprint with the machine's owner (on the machine: openssl x509 -noout -fingerprint -sha256 -in CERT); if it is the same, run `" +
			pins.TrustCommand(hp, wire.ProtoVNC, unknown.Fingerprint) + "`"
		return e
	case errors.As(err, &changed):
		return withFingerprint(changed.Fingerprint, wire.Errorf(wire.HostKeyChanged, "the TLS certificate of VNC server %s changed: it now shows SHA-256 %s, "+
			"but %s was trusted. This may be an attack: verify the machine out of band, then remove the line for %s from the known_certs file in dvv's config directory and trust it again",
			addr, changed.Fingerprint, changed.Pinned, hp))
	case errors.As(err, &proto):
		return wire.Errorf(wire.ProtocolError, "VNC server %s: %v", addr, err)
	case errors.As(err, &server):
		return wire.Errorf(wire.Unreachable, "VNC server %s refused the connection: %s", addr, server.Reason)
	}
	return wire.Errorf(wire.Unreachable, "VNC server %s: %v", addr, err)
}
