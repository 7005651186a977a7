package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestBrowserViewersShareEncoding: two noVNC pages in two Chromiums on
// one limb share its encoding (stateless Tight: each shared rectangle
// resets its zlib stream) while an xterm scrolls, and both canvases end up
// exactly the limb's picture; once one page has gone, the other (alone
// again, its zlib stream continuing after the shared rectangles) still
// follows new text exactly.
func TestBrowserViewersShareEncoding(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	v.Run(t, "xsetroot", "-solid", "#304050")
	more := filepath.Join(t.TempDir(), "more")
	v.Background(t, "xterm", "-geometry", "120x40+0+0", "-e", "sh", "-c",
		"i=0; while [ $i -lt 400 ]; do i=$((i+1)); echo shared line $i $(date +%N); sleep 0.01; done; "+
			"while [ ! -e "+more+" ]; do sleep 0.1; done; ls -l /usr/bin | head -60; sleep 600")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	link := viewerURL(t, c, id, "fit=0")
	pages := []context.Context{}
	for i := 0; i < 2; i++ {
		ctx := browser(t)
		run(t, ctx, "open the limb page", chromedp.Navigate(link))
		waitJS(t, ctx, "noVNC connected", `document.body.dataset.connected === '1'`)
		pages = append(pages, ctx)
	}
	exact := func(what string, pages []context.Context) {
		t.Helper()
		testbed.Eventually(t, 30*time.Second, what, func() bool {
			want := mirror(t, c, id)
			for _, ctx := range pages {
				if diffPixels(canvasPixels(t, ctx), want, 0) != 0 {
					return false
				}
			}
			return true
		})
	}
	exact("both canvases are the limb's picture after the scrolling", pages)

	chromedp.Cancel(pages[1]) // the second page goes
	if err := os.WriteFile(more, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	exact("the page left alone follows the new text exactly", pages[:1])
}
