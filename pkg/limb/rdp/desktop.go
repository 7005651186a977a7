// Package rdp is the RDP limb: it wraps the stand-alone client in pkg/rdp
// as a limb.Desktop and turns its failures into coded *wire.Error values.
package rdp

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/keys"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/limb/pins"
	"github.com/dvvhq/dvv/pkg/rdp"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Options tune Dial. The zero value is what the daemon uses.
type Options struct {
	// Width and Height are the desktop size asked for (servers may force
	// their own); 0 means 1280x800.
	Width, Height int
}

// Dial connects an RDP desktop limb writing into buf (limb.DesktopDialer).
func Dial(ctx context.Context, t limb.Target, buf *fb.Buffer) (limb.Desktop, error) {
	return Options{}.Dial(ctx, t, buf)
}

// Dial connects with these options.
func (o Options) Dial(ctx context.Context, t limb.Target, buf *fb.Buffer) (limb.Desktop, error) {
	hp := hostPort(t.Address, t.Port)
	w, h := o.Width, o.Height
	if w <= 0 || h <= 0 {
		w, h = 1280, 800
	}
	name := "dvv"
	if t.Slot > 0 {
		// A distinct client name per slot lets servers and their
		// administrators tell the parallel sessions apart.
		name = fmt.Sprintf("dvv-%d", t.Slot)
	}
	c, err := rdp.Dial(ctx, rdp.Config{
		Addr: hp, User: t.User, Domain: t.Domain, Password: t.Password,
		Width: w, Height: h, ClientName: name, Framebuffer: buf, Clipboard: true,
		VerifyCert: checkPin,
	})
	if err != nil {
		return nil, codedError(err, hp)
	}
	return &desktop{c: c, hp: hp, buf: buf}, nil
}

// TrustCertChecked is what `dvv hosts trust --protocol rdp` runs: it pins
// the certificate the server presents only when it is the fingerprint the
// user checked, or, with none given, when acceptNew says a new certificate
// may be pinned. Otherwise nothing is written: a different certificate is
// HOSTKEY_CHANGED, an unchecked one HOSTKEY_UNKNOWN with its fingerprint.
func TrustCertChecked(ctx context.Context, address string, port int, checked string, acceptNew bool) (fingerprint string, already bool, err error) {
	hp := hostPort(address, port)
	der, err := rdp.FetchCertificate(ctx, hp)
	if err != nil {
		return "", false, codedError(err, hp)
	}
	fp := rdp.Fingerprint(der)
	what := "the TLS certificate of RDP server " + hp
	switch err := checkPin(hp, der, fp); {
	case err == nil:
		if checked != "" && !pins.Matches(checked, fp) {
			return "", false, pins.Mismatch(what, hp, wire.ProtoRDP, checked, fp)
		}
		return fp, true, nil
	case isUnknownCert(err):
	default:
		return "", false, codedError(err, hp)
	}
	if err := pins.Decide(what, hp, wire.ProtoRDP, fp, checked, acceptNew); err != nil {
		return "", false, err
	}
	if err := pin(hp, fp); err != nil {
		return "", false, codedError(err, hp)
	}
	return fp, false, nil
}

func isUnknownCert(err error) bool {
	var ce *rdp.CertError
	return errors.As(err, &ce) && !ce.Changed
}

type desktop struct {
	c   *rdp.Client
	hp  string
	buf *fb.Buffer

	mu       sync.Mutex
	buttons  limb.Buttons
	shiftOn  int             // shift keys the caller holds
	autoShft map[uint32]bool // keysyms we wrapped in a synthetic shift
}

func (d *desktop) Done() <-chan struct{} { return d.c.Done() }

// CursorShape is the pointer shape the server last sent (nil for a system
// or hidden pointer).
func (d *desktop) CursorShape() (*image.RGBA, image.Point) {
	cur, _ := d.c.Cursor()
	if cur == nil {
		return nil, image.Point{}
	}
	return cur.Image, image.Pt(cur.HotX, cur.HotY)
}

func (d *desktop) Err() error {
	err := d.c.Err()
	if err == nil {
		return nil
	}
	var de *rdp.DisconnectError
	if errors.As(err, &de) && de.Info == rdp.InfoTakenOver {
		return &limb.TakenOverError{Err: codedError(err, d.hp)}
	}
	return codedError(err, d.hp)
}

func (d *desktop) Close() error {
	d.c.Close()
	return nil
}

func (d *desktop) DesktopName() string { return "" }

// Stalled reports a server that stopped answering (limb.Liveness).
func (d *desktop) Stalled() (bool, time.Duration) { return d.c.Stalled() }

// act maps a failure of a live session to its code.
func (d *desktop) act(err error) error {
	if err == nil {
		return nil
	}
	if e := d.c.Err(); e != nil {
		err = e
	}
	return codedError(err, d.hp)
}

// Pointer moves the pointer and sets the buttons; wheel bits set in b that
// were clear before each scroll one notch (RFB clients pulse them).
func (d *desktop) Pointer(x, y int, b limb.Buttons) error {
	d.mu.Lock()
	prev := d.buttons
	d.buttons = b
	d.mu.Unlock()
	conv := func(m limb.Buttons) rdp.Buttons {
		var r rdp.Buttons
		if m&limb.ButtonLeft != 0 {
			r |= rdp.ButtonLeft
		}
		if m&limb.ButtonMiddle != 0 {
			r |= rdp.ButtonMiddle
		}
		if m&limb.ButtonRight != 0 {
			r |= rdp.ButtonRight
		}
		return r
	}
	if err := d.c.Pointer(x, y, conv(prev), conv(b)); err != nil {
		return d.act(err)
	}
	rising := b &^ prev
	dx, dy := 0, 0
	if rising&limb.WheelUp != 0 {
		dy++
	}
	if rising&limb.WheelDown != 0 {
		dy--
	}
	if rising&limb.WheelRight != 0 {
		dx++
	}
	if rising&limb.WheelLeft != 0 {
		dx--
	}
	if dx != 0 && !d.c.HorizontalWheel() {
		return wire.Errorf(wire.NotImplemented, "this RDP server does not accept horizontal wheel events; scroll with Shift+wheel or the keyboard instead")
	}
	if dx != 0 || dy != 0 {
		return d.act(d.c.Wheel(x, y, dx, dy))
	}
	return nil
}

const scancodeLShift = 0x2A

// Key presses or releases a keysym as a scancode on a US layout. Symbols
// that need Shift there get a synthetic Shift unless the caller holds one.
func (d *desktop) Key(keysym uint32, down bool) error {
	code, shift, ok := keys.Scancode(keysym)
	if !ok {
		if r, isUni := keysymRune(keysym); isUni && d.c.UnicodeInput() {
			if down {
				return d.act(d.c.TypeUnicode(r))
			}
			return nil
		}
		return wire.Errorf(wire.UnknownKey, "keysym 0x%X has no key on a US keyboard; type the character as text instead", keysym)
	}
	d.mu.Lock()
	if keysym == keys.XK_Shift_L || keysym == keys.XK_Shift_R {
		if down {
			d.shiftOn++
		} else if d.shiftOn > 0 {
			d.shiftOn--
		}
	}
	wrap := false
	if d.autoShft == nil {
		d.autoShft = map[uint32]bool{}
	}
	if down {
		wrap = shift && d.shiftOn == 0
		if wrap {
			d.autoShft[keysym] = true
		}
	} else {
		wrap = d.autoShft[keysym]
		delete(d.autoShft, keysym)
	}
	d.mu.Unlock()
	var err error
	switch {
	case wrap && down:
		if err = d.c.Scancode(scancodeLShift, true); err == nil {
			err = d.c.Scancode(code, true)
		}
	case wrap && !down:
		if err = d.c.Scancode(code, false); err == nil {
			err = d.c.Scancode(scancodeLShift, false)
		}
	default:
		err = d.c.Scancode(code, down)
	}
	return d.act(err)
}

// keysymRune is the character a keysym stands for, for Latin-1 and
// Unicode keysyms.
func keysymRune(sym uint32) (rune, bool) {
	switch {
	case sym >= 0x20 && sym <= 0x7E, sym >= 0xA0 && sym <= 0xFF:
		return rune(sym), true
	case sym&0xFF000000 == 0x01000000:
		return rune(sym & 0x00FFFFFF), true
	}
	return 0, false
}

// TypeRune types one character: Unicode keyboard events, so the remote
// layout does not matter; Enter, Tab and BackSpace as keys. Servers without
// Unicode input get US-layout scancodes.
func (d *desktop) TypeRune(r rune) error {
	sym, unicode, err := d.route(r)
	if err != nil {
		return err
	}
	if unicode {
		return d.act(d.c.TypeUnicode(r))
	}
	if err := d.Key(sym, true); err != nil {
		return err
	}
	return d.Key(sym, false)
}

const noClipboardMsg = "the RDP server did not open the clipboard channel (cliprdr)"

// SetClipboard offers text on the remote clipboard through cliprdr
// (CF_UNICODETEXT, so every character travels).
// SetClipboard offers text as CF_UNICODETEXT. Characters outside the Basic
// Multilingual Plane (emoji) are left out and listed: xrdp 0.9's chansrv
// cannot convert a surrogate pair and then offers X nothing at all, and a
// server cannot be told apart reliably, so the answer never claims them.
func (d *desktop) SetClipboard(text string) (limb.ClipboardInfo, error) {
	info := limb.ClipboardInfo{Via: "cliprdr-unicode"}
	var kept strings.Builder
	seen := map[rune]bool{}
	for _, r := range text {
		if r <= 0xFFFF {
			kept.WriteRune(r)
			continue
		}
		if !seen[r] {
			seen[r] = true
			info.Dropped = append(info.Dropped, string(r))
		}
	}
	acked, err := d.c.SetClipboardAcked(context.Background(), kept.String(), clipboardAckWait)
	info.Confirmed = acked
	if !acked {
		info.Unconfirmed = "the server did not acknowledge the clipboard offer within " + clipboardAckWait.String()
	}
	if errors.Is(err, rdp.ErrNoClipboard) {
		return limb.ClipboardInfo{}, wire.Errorf(wire.NotImplemented, "%s; type the text instead", noClipboardMsg)
	}
	if err != nil {
		return limb.ClipboardInfo{}, d.act(err)
	}
	return info, nil
}

// clipboardAckWait bounds how long a clipboard set waits for the server's
// acknowledgement. xrdp answers in milliseconds, but a busy server (or one
// under a race detector) takes longer; every RDP server answers, so the
// wait is paid in full only when something is wrong.
const clipboardAckWait = 5 * time.Second

// Clipboard is the text the remote side last copied.
func (d *desktop) Clipboard() (string, limb.ClipboardInfo, bool) {
	text, _, ok := d.c.Clipboard()
	return text, limb.ClipboardInfo{Via: "cliprdr-unicode"}, ok
}

// Signals reports what this session can tell.
func (d *desktop) Signals() wire.Signals {
	s := wire.Signals{
		wire.SigWindowStructure: {State: wire.SignalAbsent, Reason: "RDP carries no window structure"},
		wire.SigDesktopResize:   {State: wire.SignalLive, Reason: "server-forced sizes and reactivations are followed"},
		wire.SigKeyScancodes:    {State: wire.SignalLive, Reason: "RDP input is by scancode (US layout table) and Unicode"},
		wire.SigContinuous:      {State: wire.SignalLive, Reason: "RDP servers push updates as the screen changes"},
		wire.SigBell:            {State: wire.SignalLive, Value: map[string]any{"count": d.c.Bells()}},
		wire.SigDecodeBudget:    limb.DecodeBudgetSignal(d.buf),
	}
	n := d.c.Negotiated()
	s[wire.SigSession] = wire.Signal{State: wire.SignalLive, Value: map[string]any{"security": n.Security,
		"colorDepth": n.ColorDepth, "fastPathOutput": n.FastPathOutput, "largePointer": n.LargePointer}}
	switch channel, ready := d.c.ClipboardState(); {
	case ready:
		s[wire.SigClipboard] = wire.Signal{State: wire.SignalLive, Value: map[string]any{"via": "cliprdr-unicode"}}
	case channel:
		s[wire.SigClipboard] = wire.Signal{State: wire.SignalUnknown, Reason: "the server has not started the clipboard channel yet"}
	default:
		s[wire.SigClipboard] = wire.Signal{State: wire.SignalAbsent, Reason: noClipboardMsg}
	}
	if leds, known := d.c.LEDs(); known {
		s[wire.SigLEDState] = wire.Signal{State: wire.SignalLive, Value: map[string]any{
			"caps": leds&rdp.SyncCapsLock != 0, "num": leds&rdp.SyncNumLock != 0, "scroll": leds&rdp.SyncScrollLock != 0,
		}}
	} else {
		s[wire.SigLEDState] = wire.Signal{State: wire.SignalUnknown, Reason: "the server has sent no keyboard indicators PDU yet"}
	}
	if cur, _ := d.c.Cursor(); cur != nil {
		v := map[string]any{"hotX": cur.HotX, "hotY": cur.HotY}
		if cur.Image != nil {
			v["width"], v["height"] = cur.Image.Rect.Dx(), cur.Image.Rect.Dy()
		}
		if cur.System != "" {
			v["system"] = cur.System
		}
		s[wire.SigCursorShape] = wire.Signal{State: wire.SignalLive, Value: v}
	} else {
		s[wire.SigCursorShape] = wire.Signal{State: wire.SignalUnknown, Reason: "the server has sent no pointer shape yet"}
	}
	return s
}

var _ limb.Desktop = (*desktop)(nil)
var _ limb.DesktopDialer = Dial

// CheckRune says whether r can be typed on this session, before anything
// is sent (limb.RuneChecker).
func (d *desktop) CheckRune(r rune) error {
	_, _, err := d.route(r)
	return err
}

// route picks how r is typed: a keysym sent as scan codes (Key adds Shift
// where the US layout needs it), or a Unicode event.
func (d *desktop) route(r rune) (sym uint32, unicode bool, err error) {
	switch r {
	case '\n', '\r':
		return keys.XK_Return, false, nil
	case '\t':
		return keys.XK_Tab, false, nil
	case '\b':
		return keys.XK_BackSpace, false, nil
	case 0x1b:
		return keys.XK_Escape, false, nil
	}
	if r < 0x20 || r == 0x7F {
		return 0, false, wire.Errorf(wire.BadRequest, "control character U+%04X cannot be typed; send it with `key` (e.g. ctrl+c)", r)
	}
	if d.c.UnicodeInput() {
		return 0, true, nil
	}
	sym, _ = keys.RuneKeysym(r)
	if sym == 0 {
		return 0, false, wire.Errorf(wire.BadRequest, "character U+%04X cannot be typed; send it with `key`", r)
	}
	if _, _, ok := keys.Scancode(sym); !ok {
		return 0, false, wire.Errorf(wire.NotImplemented, "this RDP server accepts no Unicode input and %q has no key on a US keyboard", r)
	}
	return sym, false, nil
}

// CheckChord refuses, before any key goes down, a chord this session
// cannot deliver as keys (limb.ChordChecker): every key needs a US scan
// code, except a lone character, which may go as a Unicode event. A
// Unicode event carries no modifiers, so ctrl+é would type a bare é.
func (d *desktop) CheckChord(syms []uint32) error {
	for i, sym := range syms {
		if _, _, ok := keys.Scancode(sym); ok {
			continue
		}
		if _, isChar := keysymRune(sym); isChar && len(syms) == 1 && d.c.UnicodeInput() {
			continue
		}
		if i == len(syms)-1 && len(syms) > 1 {
			return wire.Errorf(wire.UnknownKey, "keysym 0x%X has no key on a US keyboard, so no modifier can go with it over RDP; nothing was sent (type the character as text instead)", sym)
		}
		return wire.Errorf(wire.UnknownKey, "keysym 0x%X has no key on a US keyboard; nothing was sent (type the character as text instead)", sym)
	}
	return nil
}
