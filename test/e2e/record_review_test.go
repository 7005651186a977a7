package e2e

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/recording"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestRecordingsPage records a real Xvnc desktop while an agent clicks and
// a real sshd shell while it sends a command, then reviews both in
// Chromium on the viewer's recordings page, with the read-only secret:
// both are listed under their limbs, play to their end, and jumping to an
// act shows its frame with the act drawn over it (the click's ring in the
// act colour at the click's pixel, the command's label beside the
// terminal's text).
func TestRecordingsPage(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 400})
	v.Run(t, "xsetroot", "-solid", "#304050")
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")

	desk := openVNC(t, c, "127.0.0.1", v.Port)
	deskRec := must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: desk}, Action: "start"}).Recordings[0]
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: desk}, Action: "acquire"})
	v.Run(t, "xsetroot", "-solid", "#405060")
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: desk}, Until: "screen-stable", QuietMs: intp(300), TimeoutMs: intp(8000)})
	const clickX, clickY = 300, 200
	must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: desk}, Scale: f64p(0.25)})
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: desk}, Action: "click", X: intp(clickX), Y: intp(clickY), Generation: u64p(1)})
	// A click fenced on a generation the screen never had is refused: its
	// act is drawn in red.
	const refusedX, refusedY = 500, 100
	if _, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: desk}, Action: "click", X: intp(refusedX), Y: intp(refusedY), Generation: u64p(99)}); err == nil {
		t.Fatal("a click on generation 99 went through")
	}
	v.Run(t, "xsetroot", "-solid", "#506070")
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: desk}, Until: "screen-stable", QuietMs: intp(300), TimeoutMs: intp(8000)})
	deskRec = must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: desk}, Action: "stop"}).Recordings[0]

	term := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"}).LimbID
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: term}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatal("ssh limb did not connect")
	}
	termRec := must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: term}}).Recordings[0]
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: term}, Action: "acquire"})
	// The output comes a while after the act: a fast shell answers within
	// the same millisecond, and the page's clock counts whole milliseconds.
	must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: term}, Text: strp("sleep 0.3; echo review-$((6*7))\n")})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: term}, Until: "text", Text: strp("review-42"), TimeoutMs: intp(10000)}); !w.Wait.Settled {
		t.Fatal("the command did not run")
	}
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: term}, Until: "idle", QuietMs: intp(300), TimeoutMs: intp(10000)})
	termRec = must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: term}, Action: "stop"}).Recordings[0]

	deskActs, err := recording.ReadActs(deskRec.ActsPath)
	if err != nil {
		t.Fatal(err)
	}
	click, refused := -1, -1
	for i, a := range deskActs {
		switch {
		case a.Op == "click" && a.Outcome == "ok":
			click = i
		case a.Op == "click":
			refused = i
		}
	}
	termActs, _ := recording.ReadActs(termRec.ActsPath)
	send := -1
	for i, a := range termActs {
		if a.Op == "term_send" {
			send = i
		}
	}
	if click < 0 || refused < 0 || send < 0 {
		t.Fatalf("acts: desktop %+v, terminal %+v", deskActs, termActs)
	}

	link, _ := url.Parse(must(t, c, wire.ViewerArgs{Action: "watch"}).Viewer.URL)
	link.Path = "/recordings"
	linkWith(t, link.String(), "") // the viewer embeds its assets
	ctx := browser(t)
	run(t, ctx, "open the recordings page", chromedp.Navigate(link.String()))
	deskName, termName := filepath.Base(deskRec.Path), filepath.Base(termRec.Path)
	waitJS(t, ctx, "both recordings listed under their limbs", fmt.Sprintf(`(() => {
		const b = (n) => document.querySelector('#reclist button[data-name="' + n + '"]');
		const under = (n) => b(n) && b(n).closest('ul').previousElementSibling.textContent;
		return under(%q) === %q && under(%q) === %q;
	})()`, deskName, desk, termName, term))

	// The desktop: play to the end, then jump to the click.
	evalJS(t, ctx, "open the desktop recording", fmt.Sprintf(`document.querySelector('#reclist button[data-name=%q]').click()`, deskName))
	waitJS(t, ctx, "the desktop recording open", fmt.Sprintf(`window.dvvRec.state?.name === %q && window.dvvRec.state.shownMs === 0`, deskName))
	evalJS(t, ctx, "play", `window.dvvRec.play()`)
	waitJS(t, ctx, "the desktop played to its end", `(() => { const s = window.dvvRec.state; return !s.playing && s.shownMs === s.durationMs && s.durationMs > 0; })()`)
	at := int(math.Ceil(deskActs[click].T * 1000))
	evalJS(t, ctx, "jump to the click", fmt.Sprintf(`document.querySelector('#rec-timeline button[data-act="%d"]').click()`, click))
	waitJS(t, ctx, "the click's frame shown", fmt.Sprintf(`window.dvvRec.state.shownMs === %d`, at))
	var px struct {
		Ring  []int `json:"ring"`
		Frame []int `json:"frame"`
	}
	evalInto(t, ctx, "read the ring and the frame", fmt.Sprintf(`(() => {
		const o = document.getElementById('rec-overlay').getContext('2d');
		const f = document.getElementById('rec-frame').getContext('2d');
		return { ring: Array.from(o.getImageData(%d + 14, %d, 1, 1).data), frame: Array.from(f.getImageData(20, 20, 1, 1).data) };
	})()`, clickX, clickY), &px)
	if len(px.Ring) != 4 || px.Ring[0] < 200 || px.Ring[1] > 60 || px.Ring[2] < 150 || px.Ring[3] < 200 {
		t.Fatalf("the overlay at the ring (%d,%d)+14: %v, want the act colour #ff00c8", clickX, clickY, px.Ring)
	}
	if len(px.Frame) != 4 || px.Frame[0] != 0x40 || px.Frame[1] != 0x50 || px.Frame[2] != 0x60 {
		t.Fatalf("the click's frame at 20,20: %v, want the root colour of the time of the click #405060", px.Frame)
	}
	evalInto(t, ctx, "read the overlay away from the click", `Array.from(document.getElementById('rec-overlay').getContext('2d').getImageData(100, 300, 1, 1).data)`, &px.Ring)
	if px.Ring[3] != 0 {
		t.Fatalf("the overlay away from the click is drawn on: %v", px.Ring)
	}
	at = int(math.Ceil(deskActs[refused].T * 1000))
	evalJS(t, ctx, "jump to the refused click", fmt.Sprintf(`document.querySelector('#rec-acts button[data-act="%d"]').click()`, refused))
	waitJS(t, ctx, "the refused click's frame shown", fmt.Sprintf(`window.dvvRec.state.shownMs === %d`, at))
	evalInto(t, ctx, "read the refused ring", fmt.Sprintf(`Array.from(document.getElementById('rec-overlay').getContext('2d').getImageData(%d + 14, %d, 1, 1).data)`, refusedX, refusedY), &px.Ring)
	if px.Ring[0] < 200 || px.Ring[1] > 60 || px.Ring[2] > 120 || px.Ring[3] < 200 {
		t.Fatalf("the refused click's ring: %v, want red #ff1744", px.Ring)
	}
	var refusedItem string
	evalInto(t, ctx, "the refused act's line", fmt.Sprintf(`document.querySelectorAll('#rec-acts li')[%d].className`, refused), &refusedItem)
	if !strings.Contains(refusedItem, "refused") {
		t.Fatalf("the refused act's line is %q", refusedItem)
	}

	// The terminal: play, jump to the command, see its label and output.
	evalJS(t, ctx, "open the terminal recording", fmt.Sprintf(`document.querySelector('#reclist button[data-name=%q]').click()`, termName))
	waitJS(t, ctx, "the terminal recording open", fmt.Sprintf(`window.dvvRec.state?.name === %q && window.dvvRec.state.shownMs === 0`, termName))
	evalJS(t, ctx, "play", `window.dvvRec.play()`)
	waitJS(t, ctx, "the terminal played to its end with the command's output", `(() => { const s = window.dvvRec.state; return !s.playing && s.shownMs === s.durationMs && document.querySelector('#rec-term .xterm-rows').textContent.includes('review-42'); })()`)
	at = int(math.Ceil(termActs[send].T * 1000))
	evalJS(t, ctx, "jump to the command", fmt.Sprintf(`document.querySelector('#rec-acts button[data-act="%d"]').click()`, send))
	waitJS(t, ctx, "the command's instant shown", fmt.Sprintf(`window.dvvRec.state.shownMs === %d && !document.querySelector('#rec-term .xterm-rows').textContent.includes('review-42')`, at))
	var label struct {
		Text   string `json:"text"`
		Pixels int    `json:"pixels"`
	}
	evalInto(t, ctx, "read the label", fmt.Sprintf(`(() => {
		const o = document.getElementById('rec-overlay');
		const d = o.getContext('2d').getImageData(8, o.height - 34, 200, 26).data;
		let white = 0;
		for (let i = 0; i < d.length; i += 4) if (d[i] > 240 && d[i+1] > 240 && d[i+2] > 240 && d[i+3] > 240) white++;
		const li = document.querySelectorAll('#rec-acts li')[%d];
		return { text: li.classList.contains('now') ? li.textContent : '', pixels: white };
	})()`, send), &label)
	if label.Pixels < 30 || !strings.Contains(label.Text, "sent 32 chars") {
		t.Fatalf("the command's label: %d white pixels in the label box, act listed as %q", label.Pixels, label.Text)
	}
}

func evalJS(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	run(t, ctx, what, chromedp.Evaluate(js, nil))
}

func evalInto(t *testing.T, ctx context.Context, what, js string, out any) {
	t.Helper()
	run(t, ctx, what, chromedp.Evaluate(js, out))
}
