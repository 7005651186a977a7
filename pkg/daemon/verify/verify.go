// Package verify tells what an act did: on a desktop, whether the mirror
// changed where the act can be tied to, setting aside what was already
// changing (the limb's motion record); on a terminal, whether the shell
// echoed what was sent. dvvd starts a Verifier before each act and
// finishes it after; it knows nothing of the daemon.
package verify

import (
	"context"
	"image"
	"strings"
	"time"
	"unicode"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// An act's answer says what was seen of its effect, not only that it was
// sent: on a desktop, whether the mirror changed where the act can be tied
// to (desktop.go), setting aside what was already changing
// (motion.go); on a terminal, whether the shell echoed what was
// sent. The watch starts before the act (so a change that lands while the
// act is still being sent counts) and ends at the first evidence, so it
// costs nothing when the effect shows at once; only an act that changed
// nothing it can be tied to waits the whole window.

// nearRadius is how far from an act's point a change still counts as
// "near" it: a button or menu item around the click, a focus ring, a
// tooltip.
const nearRadius = 96

// Verifier watches for one act's effect.
type Verifier struct {
	window time.Duration

	watch  *actWatch    // desktop: the act's window on the limb's motion record
	motion *Motion      // desktop: the limb's motion record
	press  *image.Point // where a pointer act pressed: typing afterwards goes near it

	term  limb.Terminal // terminal: output after the cursor
	since uint64
	echo  string // printable text the shell should echo ("" = any output)
	busy  bool   // terminal: it was printing just before the act
}

// termBusy is how recent a terminal's last output may be for it to count
// as already printing: output after a key then proves nothing about the
// key (a log scrolling, a progress bar), so only an echo can verify.
const termBusy = 500 * time.Millisecond

// window is the verification window a request asks for (verifyMs), or
// the default.
func window(g wire.Gist) time.Duration {
	ms := wire.DefaultVerifyMs
	if g.VerifyMs != nil {
		ms = *g.VerifyMs
	}
	return time.Duration(ms) * time.Millisecond
}

// Desktop begins watching a desktop act (op, as g describes it) on the
// limb's motion record, before the act runs. With verifyMs 0 nothing is
// watched and the answer says only `dispatched`.
func Desktop(op string, g wire.Gist, m *Motion) *Verifier {
	v := &Verifier{window: window(g), motion: m}
	points, press := actPoints(op, g)
	v.press = press
	if v.window == 0 {
		return v
	}
	v.watch = m.watch(points, op != wire.OpClick)
	return v
}

// Terminal begins watching a terminal act, before it runs, on the
// session term gives (none when it fails: the limb has no live session).
func Terminal(g wire.Gist, term func() (limb.Terminal, error)) *Verifier {
	v := &Verifier{window: window(g)}
	if v.window == 0 {
		return v
	}
	t, err := term()
	if err != nil {
		return v
	}
	v.term, v.since = t, t.End()
	v.busy = time.Since(t.LastOutput()) < termBusy
	if g.Text != nil {
		v.echo = echoProbe(*g.Text)
	}
	return v
}

// Stop releases what the watch holds when the act failed.
func (v *Verifier) Stop() {
	if v != nil && v.watch != nil {
		v.watch.end()
	}
}

// Finish waits for evidence (at most the window, less if ctx ends) and
// says what was seen.
func (v *Verifier) Finish(ctx context.Context) *wire.Verification {
	defer v.Stop()
	if v.press != nil { // the act went through: it pressed there
		v.motion.notePress(*v.press)
	}
	out := &wire.Verification{Status: wire.VerifyDispatched, WindowMs: v.window.Milliseconds()}
	switch {
	case v.window == 0:
		out.Reason = "verifyMs 0: nothing was watched"
		return out
	case v.watch == nil && v.term == nil:
		out.Reason = "this limb keeps no mirror or output to watch (opened without perceive, or not connected)"
		return out
	}
	start := time.Now()
	deadline := time.NewTimer(v.window)
	defer deadline.Stop()
	if v.watch != nil {
		return v.finishDesktop(ctx, out, start, deadline.C)
	}
	return v.finishTerminal(ctx, out, start, deadline.C)
}

// actPoints: a pointer act's point (both ends of a drag), and where it
// presses, which typing afterwards goes near; none for type and key.
func actPoints(op string, g wire.Gist) (points []image.Point, press *image.Point) {
	if op != wire.OpClick || g.X == nil || g.Y == nil {
		return nil, nil
	}
	p := image.Point{X: *g.X, Y: *g.Y}
	points = []image.Point{p}
	if g.Action == "drag" && g.ToX != nil && g.ToY != nil {
		p = image.Point{X: *g.ToX, Y: *g.ToY} // the drop end
		points = append(points, p)
	}
	if g.Action != "move" && g.Action != "scroll" {
		press = &p
	}
	return points, press
}

func near(r image.Rectangle, p image.Point) bool {
	return r.Intersect(image.Rect(p.X-nearRadius, p.Y-nearRadius, p.X+nearRadius+1, p.Y+nearRadius+1)) != image.Rectangle{}
}

func (v *Verifier) finishTerminal(ctx context.Context, out *wire.Verification, start time.Time, deadline <-chan time.Time) *wire.Verification {
	var got strings.Builder
	for {
		changed := v.term.Changed()
		data, next, _, err := v.term.Read(v.since, 64<<10)
		if err == nil {
			v.since = next
			got.Write(data)
		}
		text := got.String()
		switch {
		case v.echo == "" && text != "" && !v.busy:
			out.Status, out.AfterMs, out.Where = wire.VerifyVerified, time.Since(start).Milliseconds(), "terminal"
			out.Reason = "the terminal answered with output"
			return out
		case v.echo != "" && strings.Contains(stripControls(text), v.echo):
			out.Status, out.AfterMs, out.Where = wire.VerifyVerified, time.Since(start).Milliseconds(), "terminal"
			out.Reason = "the terminal echoed the text"
			return out
		}
		select {
		case <-changed:
		case <-deadline:
			out.Status = wire.VerifyUnverified
			switch {
			case v.echo == "" && v.busy && text != "":
				out.Reason = "the terminal was already printing before the act, so its output cannot be tied to it (read the terminal)"
			case text == "":
				out.Reason = "no output within the window: a password prompt does not echo, or the program is busy (read the terminal)"
			default:
				out.Reason = "output came, but not the echo of the text: a prompt that hides input, or a program that redraws (read the terminal)"
			}
			return out
		case <-ctx.Done():
			out.Reason = "the caller went away before the echo was watched"
			return out
		}
	}
}

// echoProbe is the part of sent text a shell's echo shows verbatim: the
// first line's printable characters, at most 32 of them (a long line may
// wrap, and line editors redraw).
func echoProbe(text string) string {
	var b strings.Builder
	n := 0
	for _, r := range text {
		if r == '\n' || r == '\r' {
			if n > 0 {
				break
			}
			continue
		}
		if !unicode.IsPrint(r) || r == ' ' && n == 0 {
			continue
		}
		b.WriteRune(r)
		if n++; n == 32 {
			break
		}
	}
	return strings.TrimSpace(b.String())
}

// stripControls drops escape sequences and control characters, so an echo
// with colour or cursor moves in it still reads as the text.
func stripControls(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[': // CSI … final byte
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
		case c == 0x1b:
			i++
		case c < 0x20 || c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
