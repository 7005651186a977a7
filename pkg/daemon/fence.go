package daemon

import (
	"github.com/dvvhq/dvv/pkg/daemon/fence"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// fenceForLocked returns (creating) a's typing fence on a desktop limb
// (pkg/daemon/fence). l.mu held. Fences are made on first use, per
// attachment, so an attachment that never looks at this limb costs it no
// tracker.
func (l *Limb) fenceForLocked(a *attachment) *fence.Typing {
	f := l.dsk.fences[a]
	if f == nil {
		f = fence.NewTyping(l.dsk.buf)
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
	read := f.Read
	l.mu.Unlock()
	dmg := f.Damage()
	v := fence.View(dmg, read, l.core.cfg.FenceThreshold)
	// A resize that a restore or reset of the limb's machine made says so.
	if read && dmg.Resized {
		if ev := l.machineEvent(); ev != nil && ev.Generation == l.dsk.buf.Resizes() {
			v.Reason = "the machine was " + machineEventWords(ev) + " since the last read"
		}
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
	f.Read, f.ReadGen = true, gen
	l.mu.Unlock()
	return f.Take()
}

// lastReadGeneration is the generation of a's last pixel read (0 = never).
func (l *Limb) lastReadGeneration(a *attachment) uint64 {
	if l.dsk == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.dsk.fences[a]; f != nil {
		return f.ReadGen
	}
	return 0
}

// checkGeometry is the coordinate fence (fence.CheckGeometry) on this
// limb's screen as it is now.
func (l *Limb) checkGeometry(gen *uint64, points ...[2]int) error {
	cur := l.generation()
	var w, h int
	if cur != 0 && gen != nil && *gen == cur {
		w, h = l.dsk.buf.Size()
	}
	return fence.CheckGeometry(l.id, gen, cur, w, h, points...)
}
