package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// A busy desktop: a clock ticking every second (top right), a terminal
// printing a new line every 200 ms (bottom right), an echoing xterm with a
// blinking caret holding the focus (top left), and xman's small window
// whose "Manual Page" button opens a large window. Nothing is drawn around
// emptyPoint.
type busyDesktop struct {
	d        *testbed.Display
	typed    string // the echoing xterm's input, one line at a time
	manPage  [2]int // xman's "Manual Page" button
	empty    [2]int // bare root, far from everything that moves
	clockWin string // the xclock's X window
}

func startBusyDesktop(t *testing.T, d *testbed.Display) *busyDesktop {
	t.Helper()
	testbed.Need(t, "xclock", "xterm", "xman", "xdotool", "xsetroot")
	b := &busyDesktop{d: d, typed: filepath.Join(t.TempDir(), "typed"), manPage: [2]int{357, 355}, empty: [2]int{150, 450}}
	d.Run(t, "xsetroot", "-solid", "#203040")
	d.Background(t, "xclock", "-update", "1", "-geometry", "160x160+620+10")
	d.Background(t, "xterm", "-name", "logterm", "-geometry", "40x5+440+460", "-e", "sh", "-c",
		`i=0; while :; do i=$((i+1)); echo "line $i $(date +%N)"; sleep 0.2; done`)
	d.Background(t, "xman", "-geometry", "+300+300")
	// tee writes each line to the file; the tty echoes what is typed, the
	// way a shell shows it. -bc: the caret blinks.
	d.Background(t, "xterm", "-name", "echoterm", "-bc", "-geometry", "50x8+0+0", "-e", "sh", "-c", "exec tee "+b.typed+" >/dev/null")
	b.clockWin = b.window(t, "--class", "xclock")
	b.window(t, "--name", "^xman$")
	b.window(t, "--classname", "logterm")
	b.focus(t, b.window(t, "--classname", "echoterm"))
	return b
}

// window waits for a visible window matching the xdotool search and
// returns its id.
func (b *busyDesktop) window(t *testing.T, by, what string) string {
	t.Helper()
	var id string
	testbed.Eventually(t, 15*time.Second, "a visible window "+what, func() bool {
		o, err := b.d.Command("xdotool", "search", "--onlyvisible", by, what).Output()
		if f := strings.Fields(string(o)); err == nil && len(f) > 0 {
			id = f[0]
			return true
		}
		return false
	})
	return id
}

// focus gives win the keyboard focus and checks the X server says so.
func (b *busyDesktop) focus(t *testing.T, win string) {
	t.Helper()
	testbed.Eventually(t, 10*time.Second, "window "+win+" focused", func() bool {
		if b.d.Command("xdotool", "windowfocus", "--sync", win).Run() != nil {
			return false
		}
		o, err := b.d.Command("xdotool", "getwindowfocus").Output()
		return err == nil && strings.TrimSpace(string(o)) == win
	})
}

func logged(t *testing.T, what string, r *wiretest.Response) *wire.Verification {
	t.Logf("%s: %s", what, r.Verification.Summary())
	return r.Verification
}

func hasDiscount(vf *wire.Verification, why string) bool {
	for _, d := range vf.Discounted {
		if d.Why == why {
			return true
		}
	}
	return false
}

// checkVerificationOnBusyDesktop runs the cases of a busy desktop on an
// open, acquired limb whose record has watched the desktop for a while.
func checkVerificationOnBusyDesktop(t *testing.T, b *busyDesktop, c *client.Client, id string) {
	tgt := wire.Target{LimbID: id}
	// Let the limb see the clock tick, the log scroll and the caret blink
	// a few times with no act: that is what tells them from an act's effect.
	time.Sleep(4 * time.Second)

	// A move over bare root: the clock and the log change meanwhile, and
	// nothing near the point does.
	r := must(t, c, wire.ClickArgs{Target: tgt, Action: "move", Generation: u64p(1), X: &b.empty[0], Y: &b.empty[1], VerifyMs: intp(1500)})
	vf := logged(t, "move over the bare root", r)
	if vf == nil || vf.Status != wire.VerifyUnverified || !hasDiscount(vf, wire.DiscountMoving) {
		t.Fatalf("move over the bare root: %+v", vf)
	}
	if x, y := b.d.MouseLocation(t); x != b.empty[0] || y != b.empty[1] {
		t.Fatalf("the pointer is at %d,%d, not where it was moved", x, y)
	}

	// A key the focused xterm shows nothing for: only the caret blinks.
	r = mustAfterRead(t, c, id, wire.KeyArgs{Target: tgt, Keys: "shift", VerifyMs: intp(1500)})
	if vf = logged(t, "shift alone into the blinking xterm", r); vf == nil || vf.Status != wire.VerifyUnverified || !hasDiscount(vf, wire.DiscountBlinking) {
		t.Fatalf("shift alone into the blinking xterm: %+v", vf)
	}

	// Typing into the focused echoing xterm: the echo at the caret.
	r = mustAfterRead(t, c, id, wire.TypeArgs{Target: tgt, Text: strp("hello"), VerifyMs: intp(1500)})
	if vf = logged(t, "typing into the echoing xterm", r); vf == nil || vf.Status != wire.VerifyVerified || vf.Where != "input" || vf.Region == nil {
		t.Fatalf("typing into the echoing xterm: %+v", vf)
	}
	mustAfterRead(t, c, id, wire.KeyArgs{Target: tgt, Keys: "Return"})
	testbed.Eventually(t, 10*time.Second, "the typed line in the xterm's file", func() bool {
		return readFile(t, b.typed) == "hello\n"
	})

	// Typing into the clock: it takes the focus and ignores the keys.
	b.focus(t, b.clockWin)
	time.Sleep(time.Second) // the xterm's caret turns hollow before the act
	r = mustAfterRead(t, c, id, wire.TypeArgs{Target: tgt, Text: strp("abc"), VerifyMs: intp(1500)})
	if vf = logged(t, "typing into the focused xclock", r); vf == nil || vf.Status != wire.VerifyUnverified || !hasDiscount(vf, wire.DiscountMoving) {
		t.Fatalf("typing into the focused xclock: %+v", vf)
	}

	// A click on xman's "Manual Page" button opens its browser window.
	if b.d.Command("xdotool", "search", "--onlyvisible", "--name", "^Manual Page$").Run() == nil {
		t.Fatal("the manual page window is open before the click")
	}
	r = must(t, c, wire.ClickArgs{Target: tgt, Action: "click", Generation: u64p(1), X: &b.manPage[0], Y: &b.manPage[1], VerifyMs: intp(3000)})
	if vf = logged(t, "click on xman's Manual Page button", r); vf == nil || vf.Status != wire.VerifyVerified || vf.Where != "near" || vf.Region == nil {
		t.Fatalf("click on xman's Manual Page button: %+v", vf)
	}
	b.window(t, "--name", "^Manual Page$")
	if got := readFile(t, b.typed); got != "hello\n" {
		t.Fatalf("the xterm's file holds %q: keys typed into the clock reached it", got)
	}
}

// TestVerificationTiedToTheActVNC: on a desktop where a clock ticks and a
// log scrolls, only a change tied to the act verifies it.
func TestVerificationTiedToTheActVNC(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 800, Height: 600})
	b := startBusyDesktop(t, v.Display)
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	checkVerificationOnBusyDesktop(t, b, c, id)
}

// TestVerificationTiedToTheActRDP: the same on FreeRDP's shadow server,
// which sends only what changes.
func TestVerificationTiedToTheActRDP(t *testing.T) {
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600})
	c, id := openShadow(t, srv)
	b := startBusyDesktop(t, srv.Display)
	checkVerificationOnBusyDesktop(t, b, c, id)
}
