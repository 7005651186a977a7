// Package fence holds the rules of the two fences a desktop act passes:
// the typing fence (one attachment's view of a desktop: what repainted
// since its last pixel read) and the coordinate fence (the geometry
// generation a point was computed against). dvvd keeps one Typing per
// attachment and desktop limb, under the limb's lock; it knows nothing of
// the daemon.
package fence

import (
	"fmt"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Typing is one attachment's view of one desktop limb: damage since its
// last pixel read, whether it ever read, and the generation it last saw.
// Read and ReadGen are the caller's to guard (dvvd: the limb's lock).
type Typing struct {
	tracker *fb.Tracker
	Read    bool
	ReadGen uint64
}

// NewTyping starts counting buf's damage for one attachment.
func NewTyping(buf *fb.Buffer) *Typing { return &Typing{tracker: buf.NewTracker()} }

// Close stops counting.
func (f *Typing) Close() { f.tracker.Close() }

// Damage is what repainted since the last read, left counted.
func (f *Typing) Damage() fb.Damage { return f.tracker.Peek() }

// Take is what repainted since the last read, and starts counting anew.
func (f *Typing) Take() fb.Damage { return f.tracker.Take() }

// View is the fence as an observation shows it: armed when the
// attachment never read the screen, or it was resized, or more than
// threshold of it repainted since (read: whether it ever read).
func View(dmg fb.Damage, read bool, threshold float64) *wire.Fence {
	v := &wire.Fence{Damage: round3(dmg.Share), Threshold: threshold, NeverRead: !read}
	switch {
	case !read:
		v.Armed, v.Reason = true, "this attachment has never read the screen"
	case dmg.Resized:
		v.Armed, v.Reason = true, "the screen was resized since the last read"
	case dmg.Share > threshold:
		v.Armed, v.Reason = true, fmt.Sprintf("%.0f%% of the screen repainted since the last read", dmg.Share*100)
	}
	return v
}

// CheckGeometry is the coordinate fence for the limb whose screen is now
// generation cur and w×h: UNFENCED without a generation, GEOMETRY_CHANGED
// when stale (nothing delivered), OUT_OF_BOUNDS outside.
func CheckGeometry(limbID string, gen *uint64, cur uint64, w, h int, points ...[2]int) error {
	if gen == nil {
		return wire.Errorf(wire.Unfenced, "no generation given; pass geometry.generation from the observation your coordinates came from")
	}
	if cur == 0 {
		return wire.Errorf(wire.NotReady, "limb %s has no framebuffer size yet; wait until connected", limbID)
	}
	if *gen != cur {
		return wire.Errorf(wire.GeometryChanged, "generation %d is stale: the screen is now generation %d; nothing was delivered", *gen, cur)
	}
	for _, p := range points {
		if p[0] < 0 || p[1] < 0 || p[0] >= w || p[1] >= h {
			return wire.Errorf(wire.OutOfBounds, "(%d,%d) is outside the %dx%d framebuffer", p[0], p[1], w, h)
		}
	}
	return nil
}

// round3 rounds a share to three decimals, as answers carry them.
func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
