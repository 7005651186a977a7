//go:build bench

package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
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
