package daemon

import (
	"context"
	"fmt"
	"image"
	"slices"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/xwin"
)

// mirrorWatch is what a window act's check of the mirror needs from before
// the act: where the mirror changed since.
type mirrorWatch struct {
	buf      *fb.Buffer
	tr       *fb.Tracker
	rects    []image.Rectangle
	perceive bool // without it nothing keeps the mirror current
}

// watchMirror starts watching the desktop's mirror before a window act.
func watchMirror(k *desktopLimb) *mirrorWatch {
	k.l.mu.Lock()
	perceive := k.l.perceive
	k.l.mu.Unlock()
	return &mirrorWatch{buf: k.buf, tr: k.buf.NewTracker(), perceive: perceive}
}

func rect(r xwin.Rect) image.Rectangle { return image.Rect(r.X, r.Y, r.X+r.W, r.Y+r.H) }

// confirm waits, until deadline, for the mirror to show what the window
// manager stated: the screen changed where the window now is (activate:
// raised and its decorations repainted; resize: drawn at its new size),
// where it was (close), and for a move both where it was and where it is.
// An act the manager states changed nothing on the screen (a window already
// active, already at that place or size) has nothing to show. It answers ""
// when the mirror agrees, else which side disagreed and where.
func (m *mirrorWatch) confirm(ctx context.Context, action string, before, after xwin.Window, deadline time.Time) string {
	defer m.tr.Close()
	var where []image.Rectangle
	switch {
	case action == "activate" && !before.Focused, action == "resize" && before.Client != after.Client:
		where = []image.Rectangle{rect(after.Frame)}
	case action == "move" && before.Frame != after.Frame:
		where = []image.Rectangle{rect(before.Frame), rect(after.Frame)}
	case action == "close":
		where = []image.Rectangle{rect(before.Frame)}
	default:
		return ""
	}
	if !m.perceive {
		return "the window manager states it, but the limb was opened without perceive: there is no mirror to see it in (open again with perceive: true)"
	}
	w, h := m.buf.Size()
	for i := range where {
		if where[i] = where[i].Intersect(image.Rect(0, 0, w, h)); where[i].Empty() {
			return fmt.Sprintf("the window manager states it, but the window's frame is outside the mirrored screen (%dx%d), which cannot show it", w, h)
		}
	}
	for {
		changed := m.buf.Changed()
		rects, _ := m.tr.TakeRects()
		m.rects = append(m.rects, rects...)
		still := m.unchanged(where)
		if still == nil {
			return ""
		}
		wait := time.Until(deadline)
		if wait <= 0 || ctx.Err() != nil {
			return fmt.Sprintf("the window manager states it, but the mirrored screen did not change at %d,%d %dx%d (the window may be on another workspace, minimized or covered)",
				still.Min.X, still.Min.Y, still.Dx(), still.Dy())
		}
		t := time.NewTimer(wait)
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
}

// unchanged is the first of where the mirror did not change in, nil when
// it changed in every one.
func (m *mirrorWatch) unchanged(where []image.Rectangle) *image.Rectangle {
	for i := range where {
		if !slices.ContainsFunc(m.rects, where[i].Overlaps) {
			return &where[i]
		}
	}
	return nil
}
