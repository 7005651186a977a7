package verify

import (
	"context"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// motionScreen is a 256x256 mirror with a motion record on a stepped clock:
// each paint is absorbed at once, 400 ms after the one before.
type motionScreen struct {
	t   *testing.T
	buf *fb.Buffer
	m   *Motion
	at  time.Time
}

func newMotionScreen(t *testing.T) *motionScreen { return newMotionScreenSized(t, 256, 256) }

// newMotionScreenSized is newMotionScreen on a w x h mirror.
func newMotionScreenSized(t *testing.T, w, h int) *motionScreen {
	buf := fb.New()
	if err := buf.Resize(w, h); err != nil {
		t.Fatal(err)
	}
	s := &motionScreen{t: t, buf: buf, m: newMotion(buf), at: time.Unix(1000, 0)}
	s.m.now = func() time.Time { return s.at }
	t.Cleanup(s.m.tr.Close)
	s.paint(image.Rect(0, 0, w, h), 0x20) // the first full frame
	return s
}

// paint fills r with grey level g, as a server update would.
func (s *motionScreen) paint(r image.Rectangle, g byte) {
	pix, stride, _, _ := s.buf.BeginWrite()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			copy(pix[y*stride+x*4:], []byte{g, g, g, 0xff})
		}
	}
	s.buf.EndWrite(r)
	s.at = s.at.Add(400 * time.Millisecond)
	s.m.absorb()
}

// act watches one act whose effect is painted by effect, and answers its
// verification.
func (s *motionScreen) act(points []image.Point, typing bool, press *image.Point, effect func()) *wire.Verification {
	v := &Verifier{window: 50 * time.Millisecond, watch: s.m.watch(points, typing), motion: s.m, press: press}
	if effect != nil {
		effect()
	}
	return v.Finish(context.Background())
}

var (
	clockTile = image.Rect(224, 0, 240, 16) // top right: a ticking clock
	caretTile = image.Rect(16, 16, 32, 32)  // top left: a blinking caret
)

// tick and blink are background motion: the clock shows a new face every
// time, the caret goes back and forth between two looks.
func (s *motionScreen) tick(n int) {
	for i := 0; i < n; i++ {
		s.paint(clockTile, byte(0x40+i*7))
	}
}

func (s *motionScreen) blink(n int) {
	for i := 0; i < n; i++ {
		s.paint(caretTile, []byte{0xff, 0x20}[i%2])
	}
}

func TestMovingAreaNeverVerifiesAPointerAct(t *testing.T) {
	s := newMotionScreen(t)
	s.tick(4)
	p := image.Point{X: 230, Y: 30} // near the clock
	vf := s.act([]image.Point{p}, false, &p, func() { s.paint(clockTile, 0x99) })
	if vf.Status != wire.VerifyUnverified || len(vf.Discounted) != 1 || vf.Discounted[0].Why != wire.DiscountMoving {
		t.Fatalf("a tick near the click: %+v", vf)
	}
	// The tile next to the clock is part of its moving area; two tiles
	// below it is not, and a change there is the click's.
	vf = s.act([]image.Point{p}, false, &p, func() { s.paint(image.Rect(224, 48, 240, 64), 0x77) })
	if vf.Status != wire.VerifyVerified || vf.Where != "near" || *vf.Region != (wire.Region{X: 224, Y: 48, W: 16, H: 16}) {
		t.Fatalf("a change below the clock: %+v", vf)
	}
}

func TestChangeAwayFromThePointIsReportedNotVerified(t *testing.T) {
	s := newMotionScreen(t)
	p := image.Point{X: 20, Y: 240}
	vf := s.act([]image.Point{p}, false, nil, func() { s.paint(image.Rect(208, 208, 224, 224), 0x77) })
	if vf.Status != wire.VerifyUnverified || vf.Where != "elsewhere" || len(vf.Changes) != 1 || vf.Changes[0] != (wire.Region{X: 208, Y: 208, W: 16, H: 16}) {
		t.Fatalf("a change far from the point: %+v", vf)
	}
	// A drag is tied to both of its ends.
	vf = s.act([]image.Point{p, {X: 215, Y: 215}}, false, nil, func() { s.paint(image.Rect(208, 208, 224, 224), 0x78) })
	if vf.Status != wire.VerifyVerified || vf.Where != "near" {
		t.Fatalf("a change at a drag's drop end: %+v", vf)
	}
}

func TestBlinkingCaretAloneNeverVerifies(t *testing.T) {
	s := newMotionScreen(t)
	s.blink(6)
	vf := s.act(nil, true, nil, func() { s.blink(2) })
	if vf.Status != wire.VerifyUnverified || len(vf.Discounted) != 1 || vf.Discounted[0].Why != wire.DiscountBlinking {
		t.Fatalf("only the caret blinked: %+v", vf)
	}
	// A look the caret never showed on its own is the typed text.
	vf = s.act(nil, true, nil, func() { s.paint(caretTile, 0x90) })
	if vf.Status != wire.VerifyVerified || vf.Where != "input" || *vf.Region != (wire.Region{X: 16, Y: 16, W: 16, H: 16}) {
		t.Fatalf("typed at the caret: %+v", vf)
	}
}

func TestTypingGoesWhereInputWent(t *testing.T) {
	s := newMotionScreen(t)
	// No click, no earlier input, no caret: a change cannot be tied to
	// the keys, but it is where the next input is looked for.
	echo := image.Rect(32, 128, 48, 144)
	vf := s.act(nil, true, nil, func() { s.paint(echo, 0x50) })
	if vf.Status != wire.VerifyUnverified || !strings.Contains(vf.Reason, "does not know yet where input goes") || len(vf.Changes) != 1 {
		t.Fatalf("first input on a limb: %+v", vf)
	}
	vf = s.act(nil, true, nil, func() { s.paint(echo.Add(image.Pt(16, 0)), 0x50) })
	if vf.Status != wire.VerifyVerified || vf.Where != "input" {
		t.Fatalf("next to the previous input's effect: %+v", vf)
	}
	// A click answered at once (verifyMs 0) still says where input goes
	// next.
	s = newMotionScreen(t)
	press0 := image.Point{X: 200, Y: 200}
	if vf := (&Verifier{motion: s.m, press: &press0}).Finish(context.Background()); vf.Status != wire.VerifyDispatched {
		t.Fatalf("verifyMs 0: %+v", vf)
	}
	vf = s.act(nil, true, nil, func() { s.paint(image.Rect(176, 224, 192, 240), 0x50) })
	if vf.Status != wire.VerifyVerified || vf.Where != "input" {
		t.Fatalf("typing after a click answered at once: %+v", vf)
	}
	// After a click, a change within reach of it is where input goes.
	press := image.Point{X: 250, Y: 10}
	s.act([]image.Point{press}, false, &press, nil)
	vf = s.act(nil, true, nil, func() { s.paint(image.Rect(0, 240, 16, 256), 0x60) })
	if vf.Status != wire.VerifyVerified {
		t.Fatalf("within reach of the last click or the previous input: %+v", vf)
	}
}

// TestAPressForgetsTheEarlierInputsPlace: keys typed into a window that
// ignores them, while something ticked elsewhere, leave that tick as the
// guess of where input goes; a click elsewhere then focuses another window,
// and the same place ticking again does not verify the keys typed there.
func TestAPressForgetsTheEarlierInputsPlace(t *testing.T) {
	s := newMotionScreenSized(t, 1024, 768)
	tick := image.Rect(896, 704, 912, 720) // beyond inputRadius of the press below
	vf := s.act(nil, true, nil, func() { s.paint(tick, 0x50) })
	if vf.Status != wire.VerifyUnverified || len(vf.Changes) != 1 {
		t.Fatalf("keys into a window that ignores them: %+v", vf)
	}
	press := image.Point{X: 20, Y: 20}
	s.act([]image.Point{press}, false, &press, nil)
	vf = s.act(nil, true, nil, func() { s.paint(tick, 0x58) })
	if vf.Status == wire.VerifyVerified {
		t.Fatalf("a tick where earlier keys went unseen verified keys typed after a click elsewhere: %+v", vf)
	}
	// The typed text near the press still verifies.
	vf = s.act(nil, true, nil, func() { s.paint(image.Rect(16, 32, 32, 48), 0x60) })
	if vf.Status != wire.VerifyVerified || vf.Where != "input" {
		t.Fatalf("typed near the press: %+v", vf)
	}
}

func TestRepaintWithTheSamePixelsIsNoChange(t *testing.T) {
	s := newMotionScreen(t)
	p := image.Point{X: 100, Y: 100}
	vf := s.act([]image.Point{p}, false, nil, func() { s.paint(image.Rect(96, 96, 112, 112), 0x20) })
	if vf.Status != wire.VerifyUnverified || vf.Where != "" {
		t.Fatalf("a repaint that changed no pixel: %+v", vf)
	}
}

func TestActEffectsDoNotTeachTheRecord(t *testing.T) {
	s := newMotionScreen(t)
	menu := image.Rect(96, 96, 128, 128)
	p := image.Point{X: 100, Y: 100}
	// Two acts repaint the same place (a menu opening, then an item
	// lighting up): it is their effect, not motion of its own.
	for i, g := range []byte{0x70, 0x71} {
		vf := s.act([]image.Point{p}, false, &p, func() { s.paint(menu, g) })
		if vf.Status != wire.VerifyVerified {
			t.Fatalf("act %d: %+v", i, vf)
		}
	}
	vf := s.act([]image.Point{p}, false, &p, func() { s.paint(menu, 0x72) })
	if vf.Status != wire.VerifyVerified || len(vf.Discounted) != 0 {
		t.Fatalf("third act on the menu: %+v", vf)
	}
	// Changes right after an act (within actGrace) are still its own.
	s.act([]image.Point{p}, false, &p, nil)
	s.paint(menu, 0x73)
	s.paint(menu, 0x74)
	if m := s.m; m.tiles[(96/fb.TileSize)*m.cols+96/fb.TileSize].moving(s.at) {
		t.Fatal("changes within an act's grace taught the record")
	}
}

func TestRedialRefillIsNotMotion(t *testing.T) {
	s := newMotionScreen(t)
	for i := 0; i < 3; i++ {
		s.buf.Resize(256, 256) // a reconnect clears the mirror, same size
		s.m.absorb()
		s.paint(image.Rect(0, 0, 256, 256), 0x20)
	}
	// No tile learnt to blink between the cleared mirror and its
	// picture: typing has no caret to go by.
	vf := s.act(nil, true, nil, func() { s.paint(image.Rect(128, 128, 144, 144), 0x88) })
	if vf.Status != wire.VerifyUnverified || !strings.Contains(vf.Reason, "does not know yet") || len(vf.Discounted) != 0 {
		t.Fatalf("after refills: %+v", vf)
	}
}

// BenchmarkMotionAbsorbFullFrame: what the record costs per frame when a
// 1920x1080 screen repaints whole (a video, a scrolled page): every tile
// hashed and compared.
func BenchmarkMotionAbsorbFullFrame(b *testing.B) {
	buf := fb.New()
	if err := buf.Resize(1920, 1080); err != nil {
		b.Fatal(err)
	}
	m := newMotion(buf)
	defer m.tr.Close()
	full := image.Rect(0, 0, 1920, 1080)
	b.ReportAllocs()
	b.SetBytes(1920 * 1080 * 4)
	for i := 0; i < b.N; i++ {
		pix, _, _, _ := buf.BeginWrite()
		pix[(i%1080)*1920*4] = byte(i) // one changed pixel per frame, the rest repainted as it was
		buf.EndWrite(full)
		m.absorb()
	}
}

// Damage taken from the tracker just before a resize to a narrower frame
// lies partly beyond it: only tiles still inside are looked at (a server
// flipping to a 1-pixel-wide desktop once took the daemon down here).
func TestDamageFromBeforeAShrinkIsClippedToTheNewFrame(t *testing.T) {
	pix := make([]byte, 1*100*4) // the 1x100 frame after the shrink
	taken := []image.Rectangle{image.Rect(0, 0, 256, 32), image.Rect(16, 64, 48, 80)}
	looks := lookAt(nil, pix, 4, 1, 100, taken, nil, image.Rectangle{})
	var got []int
	for _, lk := range looks {
		got = append(got, lk.i)
	}
	if len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Fatalf("tiles looked at: %v; want [0 1] (column 0, rows 0 and 1)", got)
	}
}
