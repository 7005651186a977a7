package daemon

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/png"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/imgmatch"
	"github.com/dvvhq/dvv/pkg/wire"
)

const defaultThreshold = 0.95

// maxExpectRects bounds the damage rectangles searched one by one; more
// are searched as their bounding box.
const maxExpectRects = 64

var _ = register(wire.OpExpect, typed(opExpect))

// opExpect waits until a template picture is on the screen: a search of
// the whole frame (or region) first, then only around what changed.
func opExpect(c *opCall, a wire.ExpectArgs) (*wire.ExpectAnswer, error) {
	l := c.l
	tmpl, err := expectTemplate(a.TemplateBase64)
	if err != nil {
		return nil, err
	}
	threshold, err := expectThreshold(a.Threshold)
	if err != nil {
		return nil, err
	}
	timeout := clampMs(waitDefault, waitMax)
	if a.TimeoutMs != nil {
		timeout = clampMs(*a.TimeoutMs, waitMax)
	}
	l.mu.Lock()
	perceive := l.perceive
	l.mu.Unlock()
	if !perceive {
		return nil, &wire.Error{Code: wire.NotReady, Message: fmt.Sprintf("expect searches the framebuffer mirror, and limb %s was opened without perceive", l.id),
			Next: "call open again for this machine with perceive: true"}
	}
	if err := l.mustBeConnected(); err != nil {
		return nil, err
	}
	region, err := c.inFrame(a.Region)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tr := l.dsk.buf.NewTracker()
	defer tr.Close()
	tw, th := tmpl.Size()
	full := true
	var rects []image.Rectangle
	for {
		changed := l.dsk.buf.Changed()
		l.mu.Lock()
		stateCh := l.stateCh
		l.mu.Unlock()
		if err := l.mustBeConnected(); err != nil {
			return nil, err
		}
		gen := l.generation()
		w, h := l.dsk.buf.Size()
		search, err := expectSearch(region, w, h, tw, th, full, rects)
		if err != nil {
			return nil, err
		}
		if m, ok := searchMirror(c, tmpl, search, threshold); ok && l.generation() == gen {
			box := wire.Region{X: m.At.X, Y: m.At.Y, W: tw, H: th}
			return expectAnswer(c, &wire.ExpectResult{Found: true, Box: &box, Center: &wire.Point{X: m.At.X + tw/2, Y: m.At.Y + th/2},
				Score: round3(m.Score), Generation: gen, Detail: "the template is on the screen"}, start), nil
		}
		select {
		case <-changed:
		case <-stateCh:
		case <-deadline.C:
			return expectAnswer(c, &wire.ExpectResult{Generation: l.generation(),
				Detail: fmt.Sprintf("the template was not seen at threshold %g before the deadline", threshold)}, start), nil
		case <-c.ctx.Done():
			return nil, wire.Errorf(wire.Timeout, "the client went away")
		}
		rects, full = expectDamage(tr)
	}
}

// expectThreshold is the score a match needs: the default, or the one
// given, within [0, 1].
func expectThreshold(t *float64) (float64, error) {
	if t == nil {
		return defaultThreshold, nil
	}
	if !(*t >= 0 && *t <= 1) {
		return 0, wire.Errorf(wire.BadRequest, "threshold must be between 0 and 1")
	}
	return *t, nil
}

// expectSearch is where the template's corner may lie this turn: anywhere
// in the region (the w×h frame when none) on the first look or after a
// resize (full), else near what was repainted (rects). Corners keep the
// whole template inside the region.
func expectSearch(region image.Rectangle, w, h, tw, th int, full bool, rects []image.Rectangle) ([]image.Rectangle, error) {
	within := region
	if within.Empty() {
		within = image.Rect(0, 0, w, h)
	}
	if tw > within.Dx() || th > within.Dy() {
		return nil, wire.Errorf(wire.OutOfBounds, "the %dx%d template cannot fit in the %dx%d area searched", tw, th, within.Dx(), within.Dy())
	}
	allowed := image.Rect(within.Min.X, within.Min.Y, within.Max.X-tw+1, within.Max.Y-th+1)
	if full {
		return []image.Rectangle{allowed}, nil
	}
	var search []image.Rectangle
	for _, r := range rects {
		search = append(search, imgmatch.Corners(r, tw, th).Intersect(allowed))
	}
	return search, nil
}

// expectDamage is what was repainted since the last look, merged into one
// rectangle past maxExpectRects; full after a resize.
func expectDamage(tr *fb.Tracker) (rects []image.Rectangle, full bool) {
	rects, full = tr.TakeRects()
	if len(rects) > maxExpectRects {
		var u image.Rectangle
		for _, r := range rects {
			u = u.Union(r)
		}
		rects = []image.Rectangle{u}
	}
	return rects, full
}

// searchMirror searches copies of the mirror around each set of corners
// (so the decoder never waits for a search) and returns the best place.
func searchMirror(c *opCall, tmpl *imgmatch.Template, search []image.Rectangle, threshold float64) (imgmatch.Match, bool) {
	tw, th := tmpl.Size()
	best, found := imgmatch.Match{}, false
	for _, corners := range search {
		if corners.Empty() {
			continue
		}
		area := image.Rect(corners.Min.X, corners.Min.Y, corners.Max.X+tw-1, corners.Max.Y+th-1)
		img, _ := c.l.dsk.buf.Snapshot(area)
		if img.Bounds().Size() != area.Size() {
			continue // resized meanwhile: the next round searches everything
		}
		m, ok := tmpl.Search(img.Pix, img.Stride, area.Dx(), area.Dy(), corners.Sub(area.Min), threshold)
		if ok && (!found || m.Score > best.Score) {
			m.At = m.At.Add(area.Min)
			best, found = m, true
		}
	}
	return best, found
}

func expectTemplate(b64 string) (*imgmatch.Template, error) {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, wire.Errorf(wire.BadRequest, "templateBase64 is not base64: %v", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, wire.Errorf(wire.BadRequest, "the template is not a PNG: %v", err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > imgmatch.MaxSide || cfg.Height > imgmatch.MaxSide {
		return nil, wire.Errorf(wire.BadRequest, "the template is %dx%d; it must be between 1x1 and %dx%d", cfg.Width, cfg.Height, imgmatch.MaxSide, imgmatch.MaxSide)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, wire.Errorf(wire.BadRequest, "the template is not a PNG: %v", err)
	}
	t, err := imgmatch.NewTemplate(img)
	var flat *imgmatch.FlatError
	if errors.As(err, &flat) {
		return nil, &wire.Error{Code: wire.BadRequest, Message: err.Error() + "; nothing was searched",
			Next: "cut a region with detail (a button's label and edges, an icon), e.g. `dvv screen LIMB --region x,y,w,h --out t.png` around it, not a patch of background"}
	}
	if err != nil {
		return nil, wire.Errorf(wire.BadRequest, "%v", err)
	}
	return t, nil
}

func expectAnswer(c *opCall, res *wire.ExpectResult, start time.Time) *wire.ExpectAnswer {
	res.ElapsedMs = time.Since(start).Milliseconds()
	r := &wire.ExpectAnswer{}
	r.Expect = res
	r.Observation = c.l.observe(c.att)
	return r
}
