package daemon

import (
	"fmt"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// DefaultFenceThreshold: type and key are refused once more than this share
// of the frame (counted in 16x16 tiles) has repainted since the
// attachment's last pixel read. A fifth of the screen is more than a
// terminal echoing keys or a blinking caret, and less than a dialog box on a
// laptop-sized screen or a new window.
const DefaultFenceThreshold = 0.20

// fence is one attachment's view of one desktop limb: damage since its last
// pixel read, whether it ever read, and the generation it last saw.
type fence struct {
	tracker *fb.Tracker
	read    bool
	readGen uint64
}

func (f *fence) close() { f.tracker.Close() }

// fenceForLocked returns (creating) a's fence on a desktop limb. l.mu held.
// Fences are made on first use, per attachment, so an attachment that
// never looks at this limb costs it no tracker.
func (l *Limb) fenceForLocked(a *attachment) *fence {
	f := l.dsk.fences[a]
	if f == nil {
		f = &fence{tracker: l.dsk.buf.NewTracker()}
		l.dsk.fences[a] = f
	}
	return f
}

// fenceView reports a's typing fence for the observation.
func (l *Limb) fenceView(a *attachment) *wire.Fence {
	if l.dsk == nil || a == nil {
		return nil
	}
	l.mu.Lock()
	f := l.fenceForLocked(a)
	l.mu.Unlock()
	dmg := f.tracker.Peek()
	v := &wire.Fence{Damage: round3(dmg.Share), Threshold: l.d.cfg.FenceThreshold, NeverRead: !f.read}
	switch {
	case !f.read:
		v.Armed, v.Reason = true, "this attachment has never read the screen"
	case dmg.Resized:
		v.Armed, v.Reason = true, "the screen was resized since the last read"
		if ev := l.machineEvent(); ev != nil && ev.Generation == l.dsk.buf.Resizes() {
			v.Reason = "the machine was " + machineEventWords(ev) + " since the last read"
		}
	case dmg.Share > l.d.cfg.FenceThreshold:
		v.Armed, v.Reason = true, fmt.Sprintf("%.0f%% of the screen repainted since the last read", dmg.Share*100)
	}
	return v
}

// checkTypingFence refuses type/key with SCREEN_CHANGED while the fence is
// armed. Terminal limbs are never fenced.
func (l *Limb) checkTypingFence(a *attachment) error {
	v := l.fenceView(a)
	if v == nil || !v.Armed {
		return nil
	}
	return wire.Errorf(wire.ScreenChanged, "nothing was typed on limb %s: %s", l.id, v.Reason)
}

// markRead clears a's fence after a pixel read of generation gen.
func (l *Limb) markRead(a *attachment, gen uint64) fb.Damage {
	l.mu.Lock()
	f := l.fenceForLocked(a)
	f.read, f.readGen = true, gen
	l.mu.Unlock()
	return f.tracker.Take()
}

// lastReadGeneration is the generation of a's last pixel read (0 = never).
func (l *Limb) lastReadGeneration(a *attachment) uint64 {
	if l.dsk == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.dsk.fences[a]; f != nil {
		return f.readGen
	}
	return 0
}

// checkGeometry is the coordinate fence: UNFENCED without a generation,
// GEOMETRY_CHANGED when stale (nothing delivered), OUT_OF_BOUNDS outside.
func (l *Limb) checkGeometry(gen *uint64, points ...[2]int) error {
	if gen == nil {
		return wire.Errorf(wire.Unfenced, "no generation given; pass geometry.generation from the observation your coordinates came from")
	}
	cur := l.generation()
	if cur == 0 {
		return wire.Errorf(wire.NotReady, "limb %s has no framebuffer size yet; wait until connected", l.id)
	}
	if *gen != cur {
		e := wire.Errorf(wire.GeometryChanged, "generation %d is stale: the screen is now generation %d; nothing was delivered", *gen, cur)
		return e
	}
	w, h := l.dsk.buf.Size()
	for _, p := range points {
		if p[0] < 0 || p[1] < 0 || p[0] >= w || p[1] >= h {
			return wire.Errorf(wire.OutOfBounds, "(%d,%d) is outside the %dx%d framebuffer", p[0], p[1], w, h)
		}
	}
	return nil
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
