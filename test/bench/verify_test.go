//go:build bench

package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestVerifyWindow measures what act verification costs and how long real
// effects take to show, which is what the default window is set from:
// one character typed into a focused xterm (the echo), and the answer's
// latency with verification against the same act with verifyMs 0.
func TestVerifyWindow(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	desktopScene(t, v.Display)
	focusTerm(t, v.Display)
	d := startDvvd(t)
	c := d.dial(t)
	id := openVNC(t, c, v.Port)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	quiet, to := 200, 5000
	read := func() {
		must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: &quiet, TimeoutMs: &to})
		must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Form: "damage-crop"})
	}
	// A click into the shell's window, as an agent focuses it: typed
	// input is then looked for within reach of it.
	read()
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "click", X: intp(330), Y: intp(530), GenerationFrom: "last-read"})
	read()
	const n = 60
	var after, withV, without durations
	unverified := 0
	for i := 0; i < n; i++ {
		text := "x"
		win := 2000
		t0 := time.Now()
		r := must(t, c, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: &text, VerifyMs: &win})
		withV = append(withV, time.Since(t0))
		if r.Verification.Status != wire.VerifyVerified {
			unverified++
			continue
		}
		after = append(after, time.Duration(r.Verification.AfterMs)*time.Millisecond)
		read()
		zero := 0
		t0 = time.Now()
		must(t, c, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: &text, VerifyMs: &zero})
		without = append(without, time.Since(t0))
		read()
	}
	overhead := withV.pct(0.5) - without.pct(0.5) - after.pct(0.5)
	report(t, "Act verification (1024x768 Xvnc, one character into a focused xterm)",
		"| | p50 | p90 | p99 | max |",
		"| --- | --- | --- | --- | --- |",
		fmt.Sprintf("| act end → first damage (`afterMs`) | %s | %s | %s | %s |", ms(after.pct(0.5)), ms(after.pct(0.9)), ms(after.pct(0.99)), ms(after.pct(1))),
		fmt.Sprintf("| `type` answer, verifyMs 2000 | %s | %s | %s | %s |", ms(withV.pct(0.5)), ms(withV.pct(0.9)), ms(withV.pct(0.99)), ms(withV.pct(1))),
		fmt.Sprintf("| `type` answer, verifyMs 0 | %s | %s | %s | %s |", ms(without.pct(0.5)), ms(without.pct(0.9)), ms(without.pct(0.99)), ms(without.pct(1))),
		"",
		fmt.Sprintf("Verification adds %s at p50 beyond the damage's arrival; %d of %d echoes were not seen within 2 s.", ms(overhead), unverified, n))
}

// TestVerifyBusyDesktop counts how often act verification calls an act
// verified on a desktop where a clock ticks every second, a log scrolls
// every 200 ms and the focused xterm's caret blinks: acts with no effect
// must never be, acts with one always.
func TestVerifyBusyDesktop(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 800, Height: 600})
	d := v.Display
	d.Run(t, "xsetroot", "-solid", "#203040")
	d.Background(t, "xclock", "-update", "1", "-geometry", "160x160+620+10")
	d.Background(t, "xterm", "-name", "logterm", "-geometry", "40x5+440+460", "-e", "sh", "-c",
		`i=0; while :; do i=$((i+1)); echo "line $i $(date +%N)"; sleep 0.2; done`)
	d.Background(t, "xterm", "-name", "echoterm", "-bc", "-geometry", "80x8+0+0", "-e", "sh", "-c", "exec cat >/dev/null")
	window := func(name string) string {
		var id string
		testbed.Eventually(t, 15*time.Second, name, func() bool {
			o, err := d.Command("xdotool", "search", "--onlyvisible", "--classname", name).Output()
			if f := strings.Fields(string(o)); err == nil && len(f) > 0 {
				id = f[0]
				return true
			}
			return false
		})
		return id
	}
	focus := func(win string) {
		testbed.Eventually(t, 10*time.Second, "focus", func() bool { return d.Command("xdotool", "windowfocus", "--sync", win).Run() == nil })
	}
	clock, echo := window("xclock"), window("echoterm")
	window("logterm")
	focus(echo)
	dv := startDvvd(t)
	c := dv.dial(t)
	id := openVNC(t, c, v.Port)
	tgt := wire.Target{LimbID: id}
	must(t, c, wire.ControlArgs{Target: tgt, Action: "acquire"})
	time.Sleep(4 * time.Second) // the record watches the desktop on its own
	read := func() { must(t, c, wire.ScreenArgs{Target: tgt, Scale: floatp(0.25)}) }
	const n = 20
	type tally struct {
		verified, discounted int
		after                durations
	}
	count := func(tl *tally, r *wiretest.Response) {
		vf := r.Verification
		if vf.Status == wire.VerifyVerified {
			tl.verified++
			tl.after = append(tl.after, time.Duration(vf.AfterMs)*time.Millisecond)
		}
		if len(vf.Discounted) > 0 {
			tl.discounted++
		}
	}
	var move, shift, typed, clockKeys tally
	read()
	for i := 0; i < n; i++ {
		x, y := 60+i*8, 400+i%3*20 // bare root, a new point each time
		count(&move, must(t, c, wire.ClickArgs{Target: tgt, Action: "move", X: &x, Y: &y, GenerationFrom: "last-read"}))
	}
	for i := 0; i < n; i++ {
		read()
		count(&shift, must(t, c, wire.KeyArgs{Target: tgt, Keys: "shift"}))
	}
	for i := 0; i < n; i++ {
		read()
		text := string(rune('a' + i))
		count(&typed, must(t, c, wire.TypeArgs{Target: tgt, Text: &text}))
	}
	focus(clock)
	time.Sleep(time.Second)
	for i := 0; i < n; i++ {
		read()
		text := "q"
		count(&clockKeys, must(t, c, wire.TypeArgs{Target: tgt, Text: &text}))
	}
	row := func(what, want string, tl tally) string {
		p50 := "—"
		if len(tl.after) > 0 {
			p50 = ms(tl.after.pct(0.5))
		}
		return fmt.Sprintf("| %s | %s | %d of %d | %d of %d | %s |", what, want, tl.verified, n, tl.discounted, n, p50)
	}
	report(t, "Act verification on a busy desktop (800x600 Xvnc: xclock -update 1, a log line every 200 ms, a blinking caret; default window 300 ms)",
		"| act | should be | verified | answers with a discounted area | `afterMs` p50 (verified) |",
		"| --- | --- | --- | --- | --- |",
		row("`click move` over bare root", "never", move),
		row("`key shift` into the blinking xterm", "never", shift),
		row("`type` one letter into the focused echoing xterm", "always", typed),
		row("`type` one letter into a focused xclock", "never", clockKeys))
	if move.verified+shift.verified+clockKeys.verified > 0 || typed.verified < n {
		t.Errorf("acts without effect verified: %d, typed letters not verified: %d", move.verified+shift.verified+clockKeys.verified, n-typed.verified)
	}
}

func floatp(f float64) *float64 { return &f }
