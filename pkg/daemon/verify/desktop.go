package verify

import (
	"context"
	"fmt"
	"image"
	"sort"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// A desktop act is verified only by a change tied to it: near a pointer
// act's point (or a drag's ends), or where typed input goes. A change in an
// area that was already changing before the act (motion) is set aside and
// listed; any other change is reported, unverified, so the caller can look.

// inputRadius is how far from the last press typed input may still show:
// the press focused a window or a field, whose caret may sit at its start
// rather than under the pointer.
const inputRadius = 256

// inputHints is where typed input probably goes on this desktop. Guarded by
// motion.mu.
type inputHints struct {
	press *image.Point    // the last press: click, double, right, middle, a drag's drop
	echo  image.Rectangle // the previous type or key's effect
}

// actWatch follows one act's window on the motion record.
type actWatch struct {
	m      *Motion
	points []image.Point     // a pointer act's point(s); none for type and key
	typing bool              // type or key: evidence is where input goes
	input  []image.Rectangle // where input goes, as the act began
	class  []uint8           // every tile's class as the act began
	looks  map[int][4]uint64 // the looks of blinking tiles
	cols   int
	w, h   int

	mu      sync.Mutex
	pending []tileLook
	resized bool
	notify  chan struct{}
}

// watch begins an act's watch: damage from before it is absorbed first (it
// is not the act's effect), then the record's view of every tile is kept.
func (m *Motion) watch(points []image.Point, typing bool) *actWatch {
	m.absorb()
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	a := &actWatch{m: m, points: points, typing: typing, cols: m.cols, w: m.w, h: m.h, notify: make(chan struct{}, 1)}
	a.class, a.looks = m.snapshotLocked(now)
	if typing {
		a.input = m.inputAreaLocked(a.looks)
	}
	m.acts++
	m.watches[a] = struct{}{}
	return a
}

// inputAreaLocked: near the last press, the previous input's effect, and
// every blinking tile (a caret blinks where the focus is).
func (m *Motion) inputAreaLocked(carets map[int][4]uint64) []image.Rectangle {
	var area []image.Rectangle
	if p := m.hints.press; p != nil {
		area = append(area, image.Rect(p.X-inputRadius, p.Y-inputRadius, p.X+inputRadius+1, p.Y+inputRadius+1))
	}
	if e := m.hints.echo; !e.Empty() {
		area = append(area, e.Inset(-nearRadius))
	}
	for i := range carets {
		area = append(area, tileRect(i, m.cols, m.w, m.h).Inset(-nearRadius))
	}
	return area
}

// notePress remembers where a pointer act pressed: it focused something
// there, and typing afterwards goes near it. The previous input's effect
// is forgotten: the press may have moved the focus to another window, and
// a change there (or a guess made when dvv did not know where input went:
// a clock that ticked while keys went to a window that ignores them) is
// no longer where input goes.
func (m *Motion) notePress(p image.Point) {
	m.mu.Lock()
	m.hints.press = &p
	m.hints.echo = image.Rectangle{}
	m.mu.Unlock()
}

// end closes the watch; changes within actGrace after it teach the record
// nothing new.
func (a *actWatch) end() {
	m := a.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.watches[a]; ok {
		delete(m.watches, a)
		m.acts--
		if q := m.now().Add(actGrace); q.After(m.quietEnd) {
			m.quietEnd = q
		}
	}
}

// add and resize are called by absorb with motion.mu held.
func (a *actWatch) add(changed []tileLook, _ time.Time) {
	a.mu.Lock()
	a.pending = append(a.pending, changed...)
	a.mu.Unlock()
	a.wake()
}

func (a *actWatch) resize() {
	a.mu.Lock()
	a.resized = true
	a.mu.Unlock()
	a.wake()
}

func (a *actWatch) wake() {
	select {
	case a.notify <- struct{}{}:
	default:
	}
}

func (a *actWatch) take() ([]tileLook, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, r := a.pending, a.resized
	a.pending = nil
	return p, r
}

// actEvidence sorts an act's changes as they come.
type actEvidence struct {
	tied      image.Rectangle // changes tied to the act
	untied    map[int]bool    // tiles that changed but cannot be tied to it
	moving    map[int]bool    // tiles discounted as already moving
	blinking  map[int]bool    // tiles discounted as blinking
	firstTied time.Duration
}

func (a *actWatch) sort(ev *actEvidence, looks []tileLook, at time.Duration) {
	for _, lk := range looks {
		if lk.i >= len(a.class) {
			continue
		}
		switch a.class[lk.i] {
		case tileMoving:
			ev.moving[lk.i] = true
			continue
		case tileBlinking:
			if l := a.looks[lk.i]; showedIn(l[:], lk.hash) {
				ev.blinking[lk.i] = true
				continue
			}
		}
		r := tileRect(lk.i, a.cols, a.w, a.h)
		if a.tied(r) {
			if ev.tied.Empty() {
				ev.firstTied = at
			}
			ev.tied = ev.tied.Union(r)
			delete(ev.untied, lk.i)
		} else {
			ev.untied[lk.i] = true
		}
	}
}

func showedIn(looks []uint64, hash uint64) bool {
	for _, h := range looks {
		if h == hash {
			return true
		}
	}
	return false
}

func (a *actWatch) tied(r image.Rectangle) bool {
	if a.typing {
		for _, in := range a.input {
			if r.Overlaps(in) {
				return true
			}
		}
		return false
	}
	for _, p := range a.points {
		if near(r, p) {
			return true
		}
	}
	return false
}

func (v *Verifier) finishDesktop(ctx context.Context, out *wire.Verification, start time.Time, deadline <-chan time.Time) *wire.Verification {
	a := v.watch
	ev := &actEvidence{untied: map[int]bool{}, moving: map[int]bool{}, blinking: map[int]bool{}}
	for {
		changed := a.m.buf.Changed() // before take: a change between them is not lost
		looks, resized := a.take()
		if resized {
			out.Status, out.AfterMs, out.Where = wire.VerifyVerified, time.Since(start).Milliseconds(), "screen"
			out.Reason = "the desktop was resized after the act"
			return out
		}
		a.sort(ev, looks, time.Since(start))
		if !ev.tied.Empty() {
			return a.answer(out, ev, true)
		}
		select {
		case <-a.notify:
		case <-changed:
			a.m.absorb() // here rather than wait for the record's goroutine to wake
		case <-deadline:
			a.m.absorb() // what reached the mirror by now
			looks, _ := a.take()
			a.sort(ev, looks, time.Since(start))
			return a.answer(out, ev, !ev.tied.Empty())
		case <-ctx.Done():
			out.Reason = "the caller went away before the effect was watched"
			return out
		}
	}
}

// answer says what the window showed, and for type and key remembers where
// the input's effect was.
func (a *actWatch) answer(out *wire.Verification, ev *actEvidence, verified bool) *wire.Verification {
	out.Discounted = a.discounted(ev)
	untied := a.areas(ev.untied)
	switch {
	case verified:
		out.Status, out.AfterMs = wire.VerifyVerified, ev.firstTied.Milliseconds()
		out.Region = wireRegion(ev.tied)
		if a.typing {
			out.Where, out.Reason = "input", "the screen changed where input goes (near the caret, the previous input's effect or the last click)"
			a.rememberEcho(ev.tied)
		} else {
			out.Where, out.Reason = "near", "the screen changed near the act's point"
		}
	case len(untied) > 0:
		out.Status, out.Where = wire.VerifyUnverified, "elsewhere"
		bounds := image.Rectangle{}
		for _, r := range untied {
			bounds = bounds.Union(r)
			out.Changes = append(out.Changes, *wireRegion(r))
		}
		if len(out.Changes) > wire.MaxVerifyAreas {
			out.Changes = out.Changes[:wire.MaxVerifyAreas]
		}
		out.Region = wireRegion(bounds)
		switch {
		case !a.typing:
			out.Reason = "the screen changed only away from the act's point, which cannot be tied to the act (see changes): read the screen"
		case len(a.input) == 0:
			out.Reason = "the screen changed, but dvv does not know yet where input goes on this limb (no click, earlier input or blinking caret seen), so the change cannot be tied to the act (see changes): read the screen"
			if len(untied) == 1 {
				a.rememberEcho(untied[0]) // typing there again will tell
			}
		default:
			out.Reason = "the screen changed only away from where input goes (the caret, the previous input's effect, the last click), which cannot be tied to the act (see changes): read the screen"
		}
	default:
		out.Status = wire.VerifyUnverified
		if a.typing {
			out.Reason = "nothing changed where input goes within the window: the focused window may ignore it, or its effect is slower (read the screen)"
		} else {
			out.Reason = "nothing changed near the act's point within the window: the act may have fallen on nothing, or its effect is slower (read the screen)"
		}
	}
	if len(out.Discounted) > 0 {
		out.Reason += fmt.Sprintf("; %d area(s) that changed were already changing before the act and were set aside (see discounted)", len(out.Discounted))
	}
	return out
}

func (a *actWatch) rememberEcho(r image.Rectangle) {
	a.m.mu.Lock()
	a.m.hints.echo = r
	a.m.mu.Unlock()
}

func (a *actWatch) discounted(ev *actEvidence) []wire.Discounted {
	var out []wire.Discounted
	for _, set := range []struct {
		tiles map[int]bool
		why   string
	}{{ev.moving, wire.DiscountMoving}, {ev.blinking, wire.DiscountBlinking}} {
		for _, r := range a.areas(set.tiles) {
			out = append(out, wire.Discounted{X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy(), Why: set.why})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].W*out[i].H > out[j].W*out[j].H })
	if len(out) > wire.MaxVerifyAreas {
		out = out[:wire.MaxVerifyAreas]
	}
	return out
}

// areas groups tiles into the bounding boxes of their touching clusters,
// largest first.
func (a *actWatch) areas(tiles map[int]bool) []image.Rectangle {
	var out []image.Rectangle
	for _, box := range tileClusters(tiles, a.cols, (a.h+fb.TileSize-1)/fb.TileSize, 1) {
		r := image.Rect(box.Min.X*fb.TileSize, box.Min.Y*fb.TileSize, box.Max.X*fb.TileSize, box.Max.Y*fb.TileSize)
		out = append(out, r.Intersect(image.Rect(0, 0, a.w, a.h)))
	}
	sort.Slice(out, func(i, j int) bool {
		ai, aj := out[i].Dx()*out[i].Dy(), out[j].Dx()*out[j].Dy()
		if ai != aj {
			return ai > aj
		}
		return out[i].Min.Y < out[j].Min.Y || out[i].Min.Y == out[j].Min.Y && out[i].Min.X < out[j].Min.X
	})
	return out
}

// tileClusters groups tiles (indices on a grid cols wide) whose distance
// is at most reach tiles, and returns each group's bounding box in tile
// coordinates.
func tileClusters(tiles map[int]bool, cols, rows, reach int) []image.Rectangle {
	seen := map[int]bool{}
	var out []image.Rectangle
	for start := range tiles {
		if seen[start] || cols == 0 {
			continue
		}
		var box image.Rectangle
		queue := []int{start}
		seen[start] = true
		for len(queue) > 0 {
			i := queue[0]
			queue = queue[1:]
			tx, ty := i%cols, i/cols
			box = box.Union(image.Rect(tx, ty, tx+1, ty+1))
			for y := max(ty-reach, 0); y <= min(ty+reach, rows-1); y++ {
				for x := max(tx-reach, 0); x <= min(tx+reach, cols-1); x++ {
					if j := y*cols + x; tiles[j] && !seen[j] {
						seen[j] = true
						queue = append(queue, j)
					}
				}
			}
		}
		out = append(out, box)
	}
	return out
}

func wireRegion(r image.Rectangle) *wire.Region {
	return &wire.Region{X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy()}
}
