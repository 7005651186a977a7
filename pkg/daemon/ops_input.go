package daemon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/keys"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// onDesktop runs fn as an intent on l: the lease is checked, and fn's context is
// cancelled when the intent is withdrawn (close, takeover) or the client
// goes away.
func (c *opCall) onDesktop(fn func(ctx context.Context, desk limb.Desktop) error) error {
	l := c.l
	if err := l.checkLease(c.att); err != nil {
		return err
	}
	desk, err := l.liveDesktop()
	if err != nil {
		return err
	}
	actCtx, done, err := l.beginAct()
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	stop := context.AfterFunc(actCtx, cancel)
	defer stop()
	if err := fn(ctx, desk); err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return we
		}
		if actCtx.Err() != nil {
			return wire.Errorf(wire.LeaseRevoked, "the intent on limb %s was withdrawn (lease revoked or limb closing): %v", l.id, err)
		}
		if ctx.Err() != nil {
			return wire.Errorf(wire.Timeout, "the client went away; the intent was withdrawn: %v", err)
		}
		return wire.Errorf(wire.NotConnected, "limb %s dropped while sending input: %v", l.id, err)
	}
	return nil
}

var _ = register(wire.OpClick, typed(opClick), brief, recorded, listedOnDesktops)

func opClick(c *opCall, a wire.ClickArgs) (*wire.ClickAnswer, error) {
	l := c.l
	g := gestureOf(a)
	mods, err := modifierKeysyms(a.Modifiers)
	if err != nil {
		return nil, err
	}
	if err := l.checkLease(c.att); err != nil {
		return nil, err
	}
	gen, err := l.fenceGeneration(c.att, a.Generation, a.GenerationFrom)
	if err != nil {
		return nil, err
	}
	if err := l.checkGeometry(gen, g.points()...); err != nil {
		return nil, err
	}
	err = c.onDesktop(func(ctx context.Context, desk limb.Desktop) error {
		return withModifiers(desk, mods, func() error { return g.send(ctx, desk) })
	})
	if err != nil {
		return nil, err
	}
	r := &wire.ClickAnswer{}
	r.Dispatched = fmt.Sprintf("%s at (%d,%d) sent", g.action, g.x, g.y)
	return r, nil
}

// gesture is one click's pointer work.
type gesture struct {
	action   string
	x, y     int
	toX, toY int          // drag's release point
	button   limb.Buttons // drag's button
	wheel    limb.Buttons // scroll's direction
	clicks   int          // scroll's clicks
}

// gestureOf reads a click's gesture. The spec made x and y (and toX, toY
// for drag; direction for scroll) required, closed the sets of
// direction, button and generationFrom, and bounded clicks.
func gestureOf(a wire.ClickArgs) gesture {
	g := gesture{action: a.Action, x: *a.X, y: *a.Y, clicks: 1, button: limb.ButtonLeft}
	switch a.Action {
	case "drag":
		g.toX, g.toY = *a.ToX, *a.ToY
	case "scroll":
		g.wheel = map[string]limb.Buttons{"up": limb.WheelUp, "down": limb.WheelDown, "left": limb.WheelLeft, "right": limb.WheelRight}[a.Direction]
		if a.Clicks != nil {
			g.clicks = *a.Clicks
		}
	}
	switch a.Button {
	case "middle":
		g.button = limb.ButtonMiddle
	case "right":
		g.button = limb.ButtonRight
	}
	return g
}

// points are where the gesture touches the desktop, each checked against
// the fence's geometry.
func (g gesture) points() [][2]int {
	if g.action == "drag" {
		return [][2]int{{g.x, g.y}, {g.toX, g.toY}}
	}
	return [][2]int{{g.x, g.y}}
}

// send moves to the point, then presses (and releases) as the action says.
func (g gesture) send(ctx context.Context, desk limb.Desktop) error {
	press := func(b limb.Buttons, n int) error {
		for i := 0; i < n; i++ {
			if err := desk.Pointer(g.x, g.y, b); err != nil {
				return err
			}
			if err := desk.Pointer(g.x, g.y, 0); err != nil {
				return err
			}
		}
		return nil
	}
	if err := desk.Pointer(g.x, g.y, 0); err != nil {
		return err
	}
	switch g.action {
	case "click":
		return press(limb.ButtonLeft, 1)
	case "double":
		return press(limb.ButtonLeft, 2)
	case "right":
		return press(limb.ButtonRight, 1)
	case "middle":
		return press(limb.ButtonMiddle, 1)
	case "scroll":
		return press(g.wheel, g.clicks)
	case "drag":
		return dragPointer(ctx, desk, g.x, g.y, g.toX, g.toY, g.button)
	}
	return nil
}

// withModifiers runs fn with the modifier keys held, released in reverse order
// whatever fn did.
func withModifiers(desk limb.Desktop, mods []uint32, fn func() error) error {
	for _, m := range mods {
		if err := desk.Key(m, true); err != nil {
			return err
		}
	}
	defer func() {
		for i := len(mods) - 1; i >= 0; i-- {
			desk.Key(mods[i], false)
		}
	}()
	return fn()
}

// fenceGeneration is the geometry generation an act is fenced with: the
// one given, or with generationFrom last-read, the one of this
// attachment's last screen read (refused when there was none).
func (l *Limb) fenceGeneration(att *attachment, gen *uint64, from string) (*uint64, error) {
	if gen != nil || from != "last-read" {
		return gen, nil
	}
	g := l.lastReadGeneration(att)
	if g == 0 {
		return nil, wire.Errorf(wire.Unfenced, "this session has not read limb %s's screen yet, so there is no generation to fence with; run dvv screen first (or pass --generation)", l.id)
	}
	return &g, nil
}

// dragPointer presses at the start, moves in steps (so applications see motion),
// and releases at the end.
func dragPointer(ctx context.Context, desk limb.Desktop, x, y, toX, toY int, b limb.Buttons) error {
	if err := desk.Pointer(x, y, b); err != nil {
		return err
	}
	const steps = 12
	for i := 1; i <= steps; i++ {
		if ctx.Err() != nil {
			desk.Pointer(x+(toX-x)*(i-1)/steps, y+(toY-y)*(i-1)/steps, 0)
			return ctx.Err()
		}
		if err := desk.Pointer(x+(toX-x)*i/steps, y+(toY-y)*i/steps, b); err != nil {
			return err
		}
		time.Sleep(8 * time.Millisecond)
	}
	return desk.Pointer(toX, toY, 0)
}

func modifierKeysyms(names []string) ([]uint32, error) {
	var out []uint32
	for _, n := range names {
		syms, err := keys.ParseChord(n)
		if err != nil || len(syms) != 1 || !keys.IsModifier(syms[0]) {
			return nil, wire.Errorf(wire.UnknownKey, "modifier %q is not one of ctrl, alt, shift, super, altgr", n)
		}
		out = append(out, syms[0])
	}
	return out, nil
}

// opTypeTerminal sends the text to the PTY as it is, unfenced: a shell
// echoes it, and its screen is read as text, not pixels.
func opTypeTerminal(c *opCall, a wire.TypeArgs) (*wire.TypeAnswer, error) {
	if err := c.terminalInputAllowed(); err != nil {
		return nil, err
	}
	sent, err := termSend(c, []byte(*a.Text))
	if err != nil {
		return nil, err
	}
	return &wire.TypeAnswer{Dispatched: sent}, nil
}

var _ = register(wire.OpType, byKind(typed(opTypeDesktop), typed(opTypeTerminal)), brief, recorded, listedOnDesktops)

// opTypeDesktop types rune by rune as key events, behind the lease and the
// typing fence.
func opTypeDesktop(c *opCall, a wire.TypeArgs) (*wire.TypeAnswer, error) {
	l := c.l
	// Check the whole text before sending any of it: a control character
	// with no key, or bytes that are not UTF-8, refuse it all.
	strokes, err := keys.TextStrokes(*a.Text)
	if err != nil {
		return nil, wire.Errorf(wire.BadRequest, "nothing was typed: %v", err)
	}
	text := make([]rune, len(strokes))
	for i, s := range strokes {
		text[i] = s.Rune
	}
	var delay time.Duration
	if a.Wpm != nil { // 1..100000, by the spec
		delay = time.Minute / time.Duration(*a.Wpm*5) // a word is five characters
	}
	if err := l.checkLease(c.att); err != nil {
		return nil, err
	}
	if err := l.checkTypingFence(c.att); err != nil {
		return nil, err
	}
	if err := checkTypeable(l, text); err != nil {
		return nil, err
	}
	sent := 0
	err = c.onDesktop(func(ctx context.Context, desk limb.Desktop) error {
		for _, r := range text {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := desk.TypeRune(r); err != nil {
				return err
			}
			sent++
			if delay > 0 {
				select {
				case <-time.After(delay):
				case <-ctx.Done():
				}
			}
		}
		return nil
	})
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) && sent > 0 {
			we.Message += fmt.Sprintf(" (%d of %d characters had been sent)", sent, len(text))
		}
		return nil, err
	}
	r := &wire.TypeAnswer{}
	r.Dispatched = fmt.Sprintf("%d characters sent", len(text))
	return r, nil
}

// checkTypeable refuses, before anything is sent, a text holding
// characters the session cannot type, naming them all.
func checkTypeable(l *Limb, text []rune) error {
	desk, err := l.liveDesktop()
	if err != nil {
		return err
	}
	rc, ok := desk.(limb.RuneChecker)
	if !ok {
		return nil
	}
	var first *wire.Error
	var bad []string
	seen := map[rune]bool{}
	for _, r := range text {
		err := rc.CheckRune(r)
		if err == nil || seen[r] {
			continue
		}
		seen[r] = true
		bad = append(bad, fmt.Sprintf("%q", r))
		if first == nil {
			first = asWireError(err)
		}
	}
	if first == nil {
		return nil
	}
	return wire.Errorf(first.Code, "nothing was typed: %d character(s) cannot be typed on this session (%s): %s; send those as clipboard text, or type the rest on its own",
		len(bad), strings.Join(bad, " "), first.Message)
}

// opKeyTerminal sends the bytes an xterm sends for the chord (normal
// cursor-key mode), unfenced like any terminal input.
func opKeyTerminal(c *opCall, a wire.KeyArgs) (*wire.KeyAnswer, error) {
	syms, err := keys.ParseChord(a.Keys)
	if err != nil {
		return nil, unknownKey(err)
	}
	if err := c.terminalInputAllowed(); err != nil {
		return nil, err
	}
	b, ok := keys.TerminalBytes(syms, false)
	if !ok {
		return nil, wire.Errorf(wire.UnknownKey, "%q has no terminal byte sequence; send raw bytes with term_send bytesHex", a.Keys)
	}
	sent, err := termSend(c, b)
	if err != nil {
		return nil, err
	}
	return &wire.KeyAnswer{Dispatched: sent}, nil
}

var _ = register(wire.OpKey, byKind(typed(opKeyDesktop), typed(opKeyTerminal)), brief, recorded, listedOnDesktops)

// unknownKey answers a chord ParseChord refused; when a name near the
// unknown one exists, the hint is the chord spelled with it.
func unknownKey(err error) *wire.Error {
	we := wire.Errorf(wire.UnknownKey, "%v; names are listed in docs/keys.md", err)
	var uk *keys.UnknownKeyError
	if errors.As(err, &uk) && uk.Suggest != "" {
		we.Next = fmt.Sprintf("send %q instead (the key names are listed in docs/keys.md)", uk.Suggest)
	}
	return we
}

// opKeyDesktop presses the chord's keys in order and releases them in
// reverse, behind the lease and the typing fence.
func opKeyDesktop(c *opCall, a wire.KeyArgs) (*wire.KeyAnswer, error) {
	l := c.l
	syms, err := keys.ParseChord(a.Keys)
	if err != nil {
		return nil, unknownKey(err)
	}
	if err := l.checkLease(c.att); err != nil {
		return nil, err
	}
	if err := l.checkTypingFence(c.att); err != nil {
		return nil, err
	}
	if desk, err := l.liveDesktop(); err == nil {
		if cc, ok := desk.(limb.ChordChecker); ok {
			if err := cc.CheckChord(syms); err != nil {
				return nil, err
			}
		}
	}
	err = c.onDesktop(func(ctx context.Context, desk limb.Desktop) error {
		pressed := 0
		defer func() {
			for i := pressed - 1; i >= 0; i-- {
				desk.Key(syms[i], false)
			}
		}()
		for _, s := range syms {
			if err := desk.Key(s, true); err != nil {
				return err
			}
			pressed++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := &wire.KeyAnswer{}
	r.Dispatched = a.Keys + " sent"
	return r, nil
}

// clipboardLimit bounds clipboard text either way.
const clipboardLimit = 1 << 20

var _ = register(wire.OpClipboard, typed(opClipboard), recorded, listedOnDesktops)

func opClipboard(c *opCall, a wire.ClipboardArgs) (*wire.ClipboardAnswer, error) {
	l := c.l
	r := &wire.ClipboardAnswer{}
	switch a.Action {
	case "get":
		desk, err := l.liveDesktop()
		if err != nil {
			return nil, err
		}
		text, info, present := desk.Clipboard()
		r.Clip = &wire.Clipboard{Action: "get", Text: text, Present: present, Via: info.Via}
		return r, nil
	case "set":
		if len(*a.Text) > clipboardLimit {
			return nil, wire.Errorf(wire.TooLarge, "clipboard text is limited to %d bytes", clipboardLimit)
		}
		var info limb.ClipboardInfo
		err := c.onDesktop(func(ctx context.Context, desk limb.Desktop) error {
			var err error
			info, err = desk.SetClipboard(*a.Text)
			return err
		})
		if err != nil {
			return nil, err
		}
		r.Clip = &wire.Clipboard{Action: "set", Present: true, Via: info.Via, Dropped: info.Dropped}
		r.Dispatched = "clipboard text sent"
		r.Verification = &wire.Verification{Status: wire.VerifyDispatched, Reason: info.Unconfirmed}
		if info.Confirmed {
			r.Verification = &wire.Verification{Status: wire.VerifyVerified, Where: "clipboard", Reason: "the server acknowledged the new clipboard"}
		}
		if len(info.Dropped) > 0 {
			r.Dispatched += fmt.Sprintf("; %d characters could not be carried by %s and were left out", len(info.Dropped), info.Via)
		}
		return r, nil
	}
	return nil, wire.Errorf(wire.Internal, "clipboard action %q passed the spec but has no case", a.Action)
}
