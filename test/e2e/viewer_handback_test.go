package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestBrowserViewerClosingHandsBack: for a desktop and a terminal limb, a
// page that took the limb over (Take over, a click, typing) hands it back
// when it closes, so the agent can act again.
func TestBrowserViewerClosingHandsBack(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	desk := openVNC(t, c, "127.0.0.1", v.Port)
	r := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"})
	term := r.LimbID
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: term}, Until: "connected", TimeoutMs: intp(20000)})
	browserCtx := browser(t)

	tab := func(limb string) context.Context {
		ctx, cancel := chromedp.NewContext(browserCtx)
		t.Cleanup(cancel)
		if err := chromedp.Run(ctx); err != nil { // the tab; no deadline, which would close it
			t.Fatal(err)
		}
		run(t, ctx, "open "+limb+"'s page", chromedp.Navigate(viewerURL(t, c, limb, "")))
		waitJS(t, ctx, "the page connected", `document.body.dataset.connected === '1'`)
		return ctx
	}
	acquire := func(limb string) {
		t.Helper()
		must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: limb}, Action: "acquire"})
	}
	personHolds := func(limb string) {
		t.Helper()
		testbed.Eventually(t, 10*time.Second, "the person holds "+limb, func() bool {
			return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: limb}}).Observation.Lease.HumanTookOver
		})
		if _, err := do(t, c, wire.ControlArgs{Target: wire.Target{LimbID: limb}, Action: "acquire"}); client.Code(err) != wire.LeaseNotHeld {
			t.Fatalf("agent acquire while the person drives %s: %v, want LEASE_NOT_HELD", limb, err)
		}
	}
	handedBack := func(limb string) {
		t.Helper()
		testbed.Eventually(t, 10*time.Second, limb+" handed back to the agent", func() bool {
			_, err := do(t, c, wire.ControlArgs{Target: wire.Target{LimbID: limb}, Action: "acquire"})
			return err == nil
		})
	}
	closeTab := func(ctx context.Context) { run(t, ctx, "close the page", page.Close()) }

	for _, limb := range []string{desk, term} {
		t.Run("take over button, "+limb, func(t *testing.T) {
			acquire(limb)
			p := tab(limb)
			clickButton(t, p, "takeover")
			personHolds(limb)
			closeTab(p)
			handedBack(limb)
		})
	}

	t.Run("typing in the terminal", func(t *testing.T) {
		acquire(term)
		p := tab(term)
		run(t, p, "type in the terminal", chromedp.Click(".xterm", chromedp.ByQuery),
			chromedp.Focus(".xterm-helper-textarea", chromedp.ByQuery), input.InsertText("true"), chromedp.KeyEvent(kb.Enter))
		personHolds(term)
		closeTab(p)
		handedBack(term)
	})

	t.Run("the page's hold outlives its socket", func(t *testing.T) {
		acquire(term)
		p := tab(term)
		run(t, p, "type in the terminal", chromedp.Click(".xterm", chromedp.ByQuery),
			chromedp.Focus(".xterm-helper-textarea", chromedp.ByQuery), input.InsertText("true"), chromedp.KeyEvent(kb.Enter))
		personHolds(term)
		// The SSH session drops: the page's terminal socket ends, the limb
		// reconnects and the page opens a new socket. The page is still
		// open, so the person still holds the limb.
		s.KillSessions()
		waitJS(t, p, "the terminal socket dropped", `document.body.dataset.connected !== '1'`)
		must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: term}, Until: "connected", TimeoutMs: intp(20000)})
		waitJS(t, p, "the page reconnected", `document.body.dataset.connected === '1'`)
		personHolds(term)
		closeTab(p)
		handedBack(term)
	})

}
