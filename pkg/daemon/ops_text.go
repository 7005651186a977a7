package daemon

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/dvvhq/dvv/pkg/ocr"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

const defaultLang = "eng"

// maxLangs bounds the readers one limb keeps (one per language list).
const maxLangs = 4

// desktopText is what one read of a desktop's text gave.
type desktopText struct {
	lines  []ocr.Line
	gen    uint64
	cached bool
	lang   string
}

// readText brings the limb's recognised text up to date with its mirror.
func (c *opCall) readText(lang string) (*desktopText, error) {
	l := c.l
	if lang == "" {
		lang = defaultLang
	}
	if !ocr.ValidLang(lang) {
		return nil, wire.Errorf(wire.BadRequest, "lang %q is not a list of language codes like eng or eng+deu", lang)
	}
	l.mu.Lock()
	perceive, state := l.perceive, l.state
	l.mu.Unlock()
	if !perceive {
		return nil, &wire.Error{Code: wire.NotReady, Message: fmt.Sprintf("reading text needs the framebuffer mirror, and limb %s was opened without perceive", l.id),
			Next: "call open again for this machine with perceive: true"}
	}
	if state != wire.StateConnected {
		l.mu.Lock()
		defer l.mu.Unlock()
		return nil, l.notConnectedLocked()
	}
	eng := ocr.NewEngine(c.d.cfg.OCRProgram)
	if err := eng.Check(); err != nil {
		return nil, unsupportedText(err)
	}
	l.dsk.txt.mu.Lock()
	if l.dsk.txt.by == nil {
		l.dsk.txt.by = map[string]*ocr.Reader{}
	}
	r := l.dsk.txt.by[lang]
	if r == nil {
		if len(l.dsk.txt.by) >= maxLangs {
			for k, old := range l.dsk.txt.by {
				old.Close()
				delete(l.dsk.txt.by, k)
				break
			}
		}
		r = ocr.NewReader(eng, l.dsk.buf, lang)
		l.dsk.txt.by[lang] = r
	}
	l.dsk.txt.mu.Unlock()
	for {
		gen := l.generation()
		t0 := time.Now()
		lines, st, err := r.Read(c.ctx)
		if err != nil {
			return nil, textError(err)
		}
		if st.Areas > 0 {
			c.d.log.Debug("text read", "limb", l.id, "areas", st.Areas, "pixels", st.Pixels, "runs", st.Runs, "blocks", st.Blocks, "looked", st.Looked, "ms", time.Since(t0).Milliseconds())
		}
		// A resize during the read leaves boxes of another geometry: read
		// again (the reader starts over on a resize).
		if l.generation() == gen {
			return &desktopText{lines: lines, gen: gen, cached: st.Areas == 0, lang: lang}, nil
		}
	}
}

func unsupportedText(err error) error {
	return &wire.Error{Code: wire.Unsupported, Message: "text recognition is not available on this machine: " + err.Error(),
		Next: "install it (" + ocr.InstallHint + "), then retry; every other op works without it"}
}

func textError(err error) error {
	switch {
	case errors.Is(err, ocr.ErrUnavailable):
		return unsupportedText(err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return wire.Errorf(wire.Timeout, "text recognition was interrupted: %v", err)
	}
	return wire.Errorf(wire.Internal, "text recognition failed: %v", err)
}

// matches finds text in what was read, optionally inside a region.
func (t *desktopText) matches(text string, region image.Rectangle) []wire.TextMatch {
	out := []wire.TextMatch{}
	for _, m := range ocr.Find(t.lines, text) {
		if !region.Empty() && !m.Box.In(region) {
			continue
		}
		c := m.Center()
		how := wire.MatchPart
		if m.Whole {
			how = wire.MatchWord
		}
		out = append(out, wire.TextMatch{Text: m.Text, Box: toRegion(m.Box), Center: wire.Point{X: c.X, Y: c.Y},
			Confidence: round3(m.Conf), Generation: t.gen, Match: how})
	}
	return out
}

func toRegion(r image.Rectangle) wire.Region {
	return wire.Region{X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy()}
}

// inFrame checks an optional region, which must lie in the frame.
func (c *opCall) inFrame(g *wire.Region) (image.Rectangle, error) {
	if g == nil {
		return image.Rectangle{}, nil
	}
	w, h := c.l.dsk.buf.Size()
	r := image.Rect(g.X, g.Y, g.X+g.W, g.Y+g.H)
	if g.W <= 0 || g.H <= 0 || !r.In(image.Rect(0, 0, w, h)) {
		return r, wire.Errorf(wire.OutOfBounds, "region %dx%d+%d+%d is not inside the %dx%d framebuffer", g.W, g.H, g.X, g.Y, w, h)
	}
	return r, nil
}

var _ = register(wire.OpFind, typed(opFind), brief)

// opFind answers where text is on a desktop, or (without text) every line
// read in the region.
func opFind(c *opCall, a wire.FindArgs) (*wire.FindAnswer, error) {
	region, err := c.inFrame(a.Region)
	if err != nil {
		return nil, err
	}
	t, err := c.readText(a.Lang)
	if err != nil {
		return nil, err
	}
	w, h := c.l.dsk.buf.Size()
	res := &wire.FindResult{Lang: t.lang, Generation: t.gen, Cached: t.cached, Matches: []wire.TextMatch{},
		ImageSpace: wire.ImageSpace{Region: wire.Region{W: w, H: h}, Scale: 1, Native: wire.Size{W: w, H: h}}}
	res.ImageSpaceLine = fmt.Sprintf("imageSpace: boxes are native framebuffer pixels of the whole %dx%d frame (a full screen at scale 1); at scale s, image = native * s; generation %d", w, h, t.gen)
	if a.Text != nil && *a.Text != "" {
		res.Matches = t.matches(*a.Text, region)
	} else {
		for _, ln := range t.lines {
			if !region.Empty() && !ln.Box.Overlaps(region) {
				continue
			}
			conf := 1.0
			for _, w := range ln.Words {
				conf = min(conf, w.Conf)
			}
			res.Lines = append(res.Lines, wire.TextLine{Text: ln.Text(), Box: toRegion(ln.Box), Confidence: round3(conf)})
		}
	}
	r := &wire.FindAnswer{}
	r.Find = res
	r.Observation = c.l.observe(c.att)
	return r, nil
}

// desktopTextWait is the condition of wait until text / text-gone on a
// desktop: recognise what changed, settle when the text is there (or gone).
func desktopTextWait(c *opCall, a wire.WaitArgs, want string, found *[]wire.TextMatch) (func() (bool, string, error), func() <-chan struct{}, error) {
	// wait itself needs no capability, but on a desktop it reads the
	// screen's text and answers with the words it matched: as find does,
	// that needs screen.read.
	if c.att != nil && !c.att.grant.Has(policy.ScreenRead) {
		e := wire.Errorf(wire.PolicyDenied, "this connection lacks capability %q, which wait until %s needs on a desktop (it reads the screen's text)", policy.ScreenRead, a.Until)
		e.Next = "Ask the owner for a token that names screen.read; do not retry."
		return nil, nil, e
	}
	if _, err := c.readText(a.Lang); err != nil {
		return nil, nil, err
	}
	appear := a.Until == "text"
	quiet := paintQuiet
	if ocr.NewEngine(c.d.cfg.OCRProgram).Resident() {
		quiet = paintQuietResident
	}
	cond := func() (bool, string, error) {
		if err := c.l.mustBeConnected(); err != nil {
			return false, "", err
		}
		settlePaint(c, quiet)
		t, err := c.readText(a.Lang)
		if err != nil {
			return false, "", err
		}
		m := t.matches(want, image.Rectangle{})
		if (len(m) > 0) == appear {
			*found = m
			if appear {
				return true, fmt.Sprintf("text is on the screen (%d place(s), generation %d)", len(m), t.gen), nil
			}
			return true, "text is gone from the screen", nil
		}
		return false, "", nil
	}
	return cond, c.l.dsk.buf.Changed, nil
}

// A window is painted in a burst of updates (frame, background, text,
// buttons). Reading between them costs an engine run each and reads half a
// dialog; a read waits until the mirror has been still for paintQuiet, but
// never more than paintMaxWait after the change, so a screen that never
// stops (a video, a ticking clock) is still read. With the resident
// worker a read costs tens of milliseconds, not a program start, so a
// shorter stillness is enough.
const (
	paintQuiet         = 40 * time.Millisecond
	paintQuietResident = 12 * time.Millisecond
	paintMaxWait       = 150 * time.Millisecond
)

func settlePaint(c *opCall, quiet time.Duration) {
	start := time.Now()
	for {
		still := time.Since(c.l.dsk.buf.LastChange())
		if still >= quiet || time.Since(start) >= paintMaxWait {
			return
		}
		t := time.NewTimer(min(quiet-still, paintMaxWait-time.Since(start)))
		select {
		case <-t.C:
		case <-c.ctx.Done():
			t.Stop()
			return
		}
	}
}
