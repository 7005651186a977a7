package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// layoutReason is longer than any banner is wide: the banner must still
// be one line, with the whole reason in its title.
const layoutReason = "filling in the quarterly expense form, then checking every total against the ledger export before it is sent"

// TestBrowserViewerLayout looks at the viewer in Chromium at 800, 1440 and
// 2560 px wide, with a real Xvnc and sshd behind dvvd: the desktop fills
// its stage (or shows 1:1), the banner stays one line whatever it says,
// each button is offered only when the lease allows it, an act's label
// on the terminal page hides no text and fades, and the index puts more
// cards on wider screens with thumbnails as wide as their card. The
// screenshots are kept (see artifactDir).
func TestBrowserViewerLayout(t *testing.T) {
	const fbW, fbH = 1024, 768
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: fbW, Height: fbH})
	v.Run(t, "xsetroot", "-solid", "#2050a0")
	v.Background(t, "xterm", "-geometry", "60x16+40+40", "-e", "sh", "-c", "echo layout-check; sleep 600")
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	desk := openVNC(t, c, "127.0.0.1", v.Port)
	term := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"}).LimbID
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: term}, Until: "connected", TimeoutMs: intp(20000)})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: term}, Action: "acquire"})
	must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: term}, Text: strp("for i in 1 2 3 4 5; do echo row-$i-of-the-terminal; done\n")})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: term}, Until: "text", Text: strp("row-5-of-the-terminal"), TimeoutMs: intp(20000)})
	ctx := browser(t)
	dir := artifactDir(t)
	deskURL := viewerURL(t, c, desk, "")
	termURL := viewerURL(t, c, term, "")
	indexURL := viewerURL(t, c, "", "")

	agentHolds := func(t *testing.T) {
		t.Helper()
		testbed.Eventually(t, 10*time.Second, "the agent holds "+desk, func() bool {
			_, err := do(t, c, wire.ControlArgs{Target: wire.Target{LimbID: desk}, Action: "acquire", Reason: layoutReason})
			return err == nil
		})
	}
	for _, size := range []struct{ w, h, cols int }{{800, 600, 2}, {1440, 900, 4}, {2560, 1440, 6}} {
		t.Run(fmt.Sprintf("%dpx", size.w), func(t *testing.T) {
			shot := func(name string) { screenshot(t, ctx, filepath.Join(dir, fmt.Sprintf("%d-%s.png", size.w, name))) }
			run(t, ctx, "size the window", chromedp.EmulateViewport(int64(size.w), int64(size.h)))

			// The agent holds the desktop: Take over is offered, Hand back
			// and Resume are not, and say why.
			agentHolds(t)
			run(t, ctx, "open the desktop page", chromedp.Navigate(deskURL))
			waitJS(t, ctx, "noVNC connected and drew", `document.body.dataset.connected === '1' && document.querySelector('#screen canvas').width > 0`)
			waitButtons(t, ctx, "the agent holds", map[string]bool{"takeover": true, "handback": false, "pause": true, "pause-all": true, "resume": false})
			waitJS(t, ctx, "the banner names the agent", `document.getElementById('lease').textContent.startsWith('agent drives')`)
			if title := evalString(t, ctx, `document.getElementById('lease').title`); !strings.Contains(title, layoutReason) {
				t.Errorf("the banner's title %q lacks the whole reason", title)
			}
			canvasFills(t, ctx, fbW, fbH)
			bannerOneLine(t, ctx)
			shot("desktop-agent")
			before := canvasRect(t, ctx)

			// The person takes over: Hand back is offered, Take over is not.
			clickButton(t, ctx, "takeover")
			testbed.Eventually(t, 10*time.Second, "the person holds "+desk, func() bool {
				return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: desk}}).Observation.Lease.HumanTookOver
			})
			waitButtons(t, ctx, "the person took over", map[string]bool{"takeover": false, "handback": true, "pause": true, "resume": false})
			bannerOneLine(t, ctx)
			if after := canvasRect(t, ctx); after != before {
				t.Errorf("the picture moved when the lease changed: %v, then %v", before, after)
			}
			shot("desktop-person")
			// A click on the scaled picture lands where it was aimed, within
			// the remote pixels one page pixel covers.
			x, y := canvasPoint(t, ctx, 700, 500)
			run(t, ctx, "click on the scaled picture", chromedp.MouseClickXY(x, y))
			slack := int(math.Ceil(float64(fbW)/before[2])) + 1
			testbed.Eventually(t, 10*time.Second, "the X pointer near 700,500", func() bool {
				mx, my := v.MouseLocation(t)
				return abs(mx-700) <= slack && abs(my-500) <= slack
			})

			// Handed back and paused: Resume is offered, Pause is not.
			clickButton(t, ctx, "handback")
			agentHolds(t)
			clickButton(t, ctx, "pause")
			waitButtons(t, ctx, "agents paused", map[string]bool{"takeover": true, "handback": false, "pause": false, "pause-all": true, "resume": true})
			gen := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: desk}}).Observation.Geometry.Generation
			if _, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: desk}, Action: "move", X: intp(3), Y: intp(3), Generation: &gen}); err == nil {
				t.Fatal("an agent act went through while the page shows the limb paused")
			}
			bannerOneLine(t, ctx)
			shot("desktop-paused")
			clickButton(t, ctx, "resume")
			waitButtons(t, ctx, "resumed", map[string]bool{"pause": true, "resume": false})

			// Every limb paused: Resume on this page lifts it everywhere.
			clickButton(t, ctx, "pause-all")
			waitButtons(t, ctx, "every limb paused", map[string]bool{"pause": false, "pause-all": false, "resume": true})
			waitJS(t, ctx, "the banner says every limb", `document.getElementById('lease').textContent.includes('every limb')`)
			if _, err := do(t, c, wire.ControlArgs{Target: wire.Target{LimbID: term}, Action: "acquire"}); err == nil {
				t.Fatal("an agent acquired the other limb while every limb is paused")
			}
			clickButton(t, ctx, "resume")
			waitButtons(t, ctx, "every limb resumed", map[string]bool{"pause": true, "pause-all": true, "resume": false})
			must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: term}, Action: "acquire"})

			// 1:1 shows the framebuffer pixel for pixel; Fit fills again.
			clickButton(t, ctx, "scale")
			waitJS(t, ctx, "the canvas at 1:1", fmt.Sprintf(`(() => { const r = document.querySelector('#screen canvas').getBoundingClientRect(); return Math.abs(r.width - %d) < 1 && Math.abs(r.height - %d) < 1; })()`, fbW, fbH))
			shot("desktop-1to1")
			clickButton(t, ctx, "scale")
			canvasFills(t, ctx, fbW, fbH)

			// The terminal page: the grid fills the stage; an act's label
			// sits outside the text and fades away.
			run(t, ctx, "open the terminal page", chromedp.Navigate(termURL))
			waitJS(t, ctx, "xterm shows the rows", `(() => { const e = document.querySelector('.xterm-rows'); return !!e && e.textContent.includes('row-5-of-the-terminal'); })()`)
			must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: term}, Action: "acquire"})
			must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: term}, Text: strp("echo label-check\n")})
			waitJS(t, ctx, "the act's label shows", `!!document.querySelector('#actnow .act')`)
			var overlap struct {
				Label, Text []float64
				Drawn       int
			}
			run(t, ctx, "locate the label", chromedp.Evaluate(`(() => {
				const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
				const o = document.getElementById('overlay'), g = o.getContext('2d');
				const d = o.width ? g.getImageData(0, 0, o.width, o.height).data : [];
				let drawn = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) drawn++;
				return {label: box(document.querySelector('#actnow .act')), text: box(document.querySelector('.xterm-screen')), drawn};
			})()`, &overlap))
			if intersects(overlap.Label, overlap.Text) {
				t.Errorf("the act's label %v lies over the terminal's text %v", overlap.Label, overlap.Text)
			}
			if overlap.Drawn != 0 {
				t.Errorf("%d pixels drawn over the terminal", overlap.Drawn)
			}
			gridFills(t, ctx)
			bannerOneLine(t, ctx)
			shot("terminal-label")
			waitJS(t, ctx, "the act's label faded away", `!document.querySelector('#actnow .act')`)

			// The index: more cards a row on wider screens, thumbnails as
			// wide as their card.
			run(t, ctx, "open the index", chromedp.Navigate(indexURL))
			waitJS(t, ctx, "the thumbnail loaded", fmt.Sprintf(`(() => { const i = document.querySelector('a.card[data-limb=%q] img'); return !!i && i.complete && i.naturalWidth > 0; })()`, desk))
			var grid struct {
				Cols  int
				Cards [][]float64 // card content width, thumbnail width, thumbnail height
				Desk  int         // the desktop's card
			}
			run(t, ctx, "measure the index", chromedp.Evaluate(`(() => ({
				cols: getComputedStyle(document.getElementById('limbs')).gridTemplateColumns.split(' ').length,
				cards: [...document.querySelectorAll('a.card')].map(a => {
					const cs = getComputedStyle(a), r = a.querySelector('.thumb').getBoundingClientRect();
					return [a.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight), r.width, r.height];
				}),
				desk: [...document.querySelectorAll('a.card')].findIndex(a => a.dataset.limb === `+strconv.Quote(desk)+`),
			}))()`, &grid))
			t.Logf("the index has %d cards a row", grid.Cols)
			if grid.Cols < size.cols {
				t.Errorf("the index has %d cards a row at %d px, want at least %d", grid.Cols, size.w, size.cols)
			}
			for i, cd := range grid.Cards {
				if cd[1] < 0.98*cd[0] {
					t.Errorf("card %d: the thumbnail is %.0f px wide in a card of %.0f", i, cd[1], cd[0])
				}
			}
			if cd := grid.Cards[grid.Desk]; math.Abs(cd[1]/cd[2]-float64(fbW)/fbH) > 0.02 {
				t.Errorf("the desktop's thumbnail is %.0f×%.0f, not the desktop's shape", cd[1], cd[2])
			}
			shot("index")
		})
	}

	// Browsers ask for /favicon.ico unprompted, without a secret.
	u, _ := url.Parse(deskURL)
	resp, err := http.Get("http://" + u.Host + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/x-icon" || len(b) < 22 || binary.LittleEndian.Uint16(b[2:]) != 1 {
		t.Fatalf("GET /favicon.ico: HTTP %d, %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(b))
	}
	if _, err := png.Decode(bytes.NewReader(b[binary.LittleEndian.Uint32(b[18:]):])); err != nil {
		t.Fatalf("the favicon's image: %v", err)
	}
}

// artifactDir is where a test keeps its screenshots: under
// $DVV_TEST_ARTIFACTS when set (kept after the run), else a temporary
// directory.
func artifactDir(t *testing.T) string {
	dir := t.TempDir()
	if root := os.Getenv("DVV_TEST_ARTIFACTS"); root != "" {
		dir = filepath.Join(root, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

func screenshot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	var b []byte
	run(t, ctx, "screenshot", chromedp.CaptureScreenshot(&b))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	var s string
	run(t, ctx, "evaluate", chromedp.Evaluate(js, &s))
	return s
}

// waitButtons waits for each button's enabled state, then checks that
// every button says in its title what it does or why it cannot.
func waitButtons(t *testing.T, ctx context.Context, what string, want map[string]bool) {
	t.Helper()
	var cond []string
	for id, on := range want {
		cond = append(cond, fmt.Sprintf(`document.getElementById(%q).disabled === %v`, id, !on))
	}
	waitJS(t, ctx, what+": buttons "+fmt.Sprint(want), strings.Join(cond, " && "))
	var missing []string
	run(t, ctx, "read the buttons' titles", chromedp.Evaluate(`[...document.querySelectorAll('#banner button')].filter(b => !b.title).map(b => b.id)`, &missing))
	if len(missing) > 0 {
		t.Errorf("%s: buttons without a title: %v", what, missing)
	}
}

func canvasRect(t *testing.T, ctx context.Context) [4]float64 {
	t.Helper()
	var r []float64
	run(t, ctx, "locate the canvas", chromedp.Evaluate(`(() => { const r = document.querySelector('#screen canvas').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, &r))
	return [4]float64{r[0], r[1], r[2], r[3]}
}

// canvasFills: the picture keeps the framebuffer's shape, stays inside the
// stage and covers at least 90% of it in one dimension (noVNC rescales
// after a resize, so it is given a moment).
func canvasFills(t *testing.T, ctx context.Context, fbW, fbH int) {
	t.Helper()
	var problem string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var m []float64 // canvas then stage: left, top, right, bottom
		run(t, ctx, "measure the stage", chromedp.Evaluate(`(() => {
			const a = document.querySelector('#screen canvas').getBoundingClientRect(), b = document.getElementById('stage').getBoundingClientRect();
			return [a.left, a.top, a.right, a.bottom, b.left, b.top, b.right, b.bottom];
		})()`, &m))
		cw, ch, sw, sh := m[2]-m[0], m[3]-m[1], m[6]-m[4], m[7]-m[5]
		switch {
		case math.Max(cw/sw, ch/sh) < 0.9:
			problem = fmt.Sprintf("the canvas is %.0f×%.0f in a stage of %.0f×%.0f: under 90%% in both dimensions", cw, ch, sw, sh)
		case math.Abs(cw/ch-float64(fbW)/float64(fbH)) > 0.01:
			problem = fmt.Sprintf("the canvas is %.0f×%.0f, not the framebuffer's shape %d×%d", cw, ch, fbW, fbH)
		case m[0] < m[4]-1 || m[1] < m[5]-1 || m[2] > m[6]+1 || m[3] > m[7]+1:
			problem = fmt.Sprintf("the canvas %v spills out of the stage %v", m[:4], m[4:])
		default:
			t.Logf("the canvas is %.0f×%.0f in a stage of %.0f×%.0f (%.0f%% × %.0f%%)", cw, ch, sw, sh, 100*cw/sw, 100*ch/sh)
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(problem)
		}
	}
}

// gridFills: the terminal's grid covers at least 90% of the stage in one
// dimension and stays inside it.
func gridFills(t *testing.T, ctx context.Context) {
	t.Helper()
	var m []float64
	run(t, ctx, "measure the terminal", chromedp.Evaluate(`(() => {
		const a = document.querySelector('.xterm-screen').getBoundingClientRect(), b = document.getElementById('stage').getBoundingClientRect();
		return [a.width, a.height, b.width, b.height];
	})()`, &m))
	if math.Max(m[0]/m[2], m[1]/m[3]) < 0.9 || m[0] > m[2]+1 || m[1] > m[3]+1 {
		t.Errorf("the terminal's grid is %.0f×%.0f in a stage of %.0f×%.0f", m[0], m[1], m[2], m[3])
	}
}

// bannerOneLine: every shown part of the banner sits on one row inside it,
// and the banner is no taller than one row of buttons.
func bannerOneLine(t *testing.T, ctx context.Context) {
	t.Helper()
	var r struct {
		Banner []float64   // top, bottom, left, right
		Parts  [][]float64 // top, bottom, left, right
	}
	run(t, ctx, "measure the banner", chromedp.Evaluate(`(() => {
		const box = e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; };
		const b = document.getElementById('banner');
		return {banner: box(b), parts: [...b.children].filter(e => e.getClientRects().length).map(box)};
	})()`, &r))
	tallest := 0.0
	for _, p := range r.Parts {
		tallest = math.Max(tallest, p[1]-p[0])
		mid, first := (p[0]+p[1])/2, (r.Parts[0][0]+r.Parts[0][1])/2
		if math.Abs(mid-first) > 2 || p[2] < r.Banner[2]-0.5 || p[3] > r.Banner[3]+0.5 {
			t.Errorf("a part of the banner %v is off its one line (banner %v, first part %v)", p, r.Banner, r.Parts[0])
		}
	}
	if h := r.Banner[1] - r.Banner[0]; h >= 2*tallest {
		t.Errorf("the banner is %.0f px tall for parts %.0f px tall: it wrapped", h, tallest)
	}
	// One line of text is about 1.2 em high, two 2.4 em.
	var lease []float64
	run(t, ctx, "measure the lease text", chromedp.Evaluate(`(() => { const e = document.getElementById('lease'); return [e.scrollHeight, parseFloat(getComputedStyle(e).fontSize)]; })()`, &lease))
	if lease[0] >= 2*lease[1] {
		t.Errorf("the lease text is %.0f px high in a %.0f px font: more than one line", lease[0], lease[1])
	}
}

func intersects(a, b []float64) bool {
	return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

func abs(n int) int { return max(n, -n) }
