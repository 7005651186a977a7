package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTypingIntoTheClickedXtermIsVerified: on a 1920x1080 Xvnc where a
// clock ticks every second and a log scrolls, keys typed into the clock
// (which ignores them) are not verified, and then a click into an xterm at
// +300+600 and `type "echo hi"` is verified where the xterm echoes it,
// within inputRadius of the click, not reported as a change elsewhere.
func TestTypingIntoTheClickedXtermIsVerified(t *testing.T) {
	testbed.Need(t, "xclock", "xterm", "xdotool", "xsetroot")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	x := v.Display
	typed := filepath.Join(t.TempDir(), "typed")
	x.Run(t, "xsetroot", "-solid", "#203040")
	x.Background(t, "xclock", "-update", "1", "-geometry", "160x160+1600+80")
	x.Background(t, "xterm", "-name", "logterm", "-geometry", "60x8+1100+800", "-e", "sh", "-c",
		`i=0; while :; do i=$((i+1)); echo "log line $i $(date +%N)"; sleep 0.3; done`)
	// The xterm echoes what is typed (the tty), and tee keeps each line.
	x.Background(t, "xterm", "-name", "shellterm", "-geometry", "80x24+300+600", "-e", "sh", "-c", "exec tee "+typed+" >/dev/null")
	b := &busyDesktop{d: x}
	b.window(t, "--classname", "logterm")
	b.window(t, "--classname", "shellterm")
	b.window(t, "--class", "xclock")

	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	tgt := wire.Target{LimbID: id}
	must(t, c, wire.ControlArgs{Target: tgt, Action: "acquire"})
	// Let the record see the clock tick and the log scroll with no act.
	time.Sleep(4 * time.Second)

	// Focus follows the pointer on a bare X server: a click on the clock
	// gives it the keys, which it ignores. The clock ticks around that
	// press, where input would go: its ticking must not verify the keys.
	must(t, c, wire.ClickArgs{Target: tgt, Action: "click", Generation: u64p(1), X: intp(1680), Y: intp(160)})
	r := mustAfterRead(t, c, id, wire.TypeArgs{Target: tgt, Text: strp("abc"), VerifyMs: intp(1500)})
	if vf := logged(t, "typing into the clock", r); vf == nil || vf.Status == wire.VerifyVerified {
		t.Fatalf("keys the clock ignores were verified: %+v", vf)
	}

	must(t, c, wire.ClickArgs{Target: tgt, Action: "click", Generation: u64p(1), X: intp(480), Y: intp(655)})
	r = mustAfterRead(t, c, id, wire.TypeArgs{Target: tgt, Text: strp("echo hi")})
	vf := logged(t, "typing into the clicked xterm", r)
	if vf == nil || vf.Status != wire.VerifyVerified || vf.Where != "input" || vf.Region == nil {
		t.Fatalf("typing into the clicked xterm: %+v", vf)
	}
	// Where it verified is the xterm's first line (whole 16x16 tiles),
	// not the clock or the log.
	if g := vf.Region; g.X < 300-16 || g.Y < 600-16 || g.X+g.W > 300+500+16 || g.Y+g.H > 600+60 {
		t.Errorf("verified at %+v, not the xterm's first line at +300+600", *g)
	}
	mustAfterRead(t, c, id, wire.KeyArgs{Target: tgt, Keys: "Return"})
	testbed.Eventually(t, 10*time.Second, "the typed line in the xterm's file", func() bool {
		return readFile(t, typed) == "echo hi\n"
	})
}
