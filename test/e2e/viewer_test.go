package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// browser starts headless Chromium (Debian's) with a fresh profile.
func browser(t *testing.T) context.Context {
	t.Helper()
	testbed.Need(t, "chromium")
	// Not t.TempDir: Chromium may still write its profile while it exits.
	profile, err := os.MkdirTemp("", "dvv-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath("/usr/bin/chromium"),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile), chromedp.WindowSize(1400, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelB()
		cancelA()
		deadline := time.Now().Add(10 * time.Second)
		for os.RemoveAll(profile) != nil && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// viewerURL is the link to a limb's page (the index for ""), with extra
// as its query; the secret stays in the fragment.
func viewerURL(t *testing.T, c *client.Client, limb string, extra string) string {
	return linkWith(t, must(t, c, wire.ViewerArgs{LimbID: limb}).Viewer.URL, extra)
}

// linkWith checks that the viewer embeds its assets and gives its link
// the query extra.
func linkWith(t *testing.T, link, extra string) string {
	pu, _ := url.Parse(link)
	req, _ := http.NewRequest(http.MethodGet, "http://"+pu.Host+"/api/info", nil)
	req.Header.Set("Authorization", "Bearer "+linkSecret(t, link))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ NoVNC, Xterm bool }
	json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if !info.NoVNC || !info.Xterm {
		msg := fmt.Sprintf("this test binary embeds no viewer assets (noVNC %v, xterm.js %v): run `make web` first", info.NoVNC, info.Xterm)
		testbed.Unavailable(t, "%s", msg)
	}
	pu.RawQuery = extra
	return pu.String()
}

// linkSecret is the secret a viewer link carries in its fragment.
func linkSecret(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	frag, _ := url.ParseQuery(u.Fragment)
	if len(frag.Get("k")) < 32 || u.RawQuery != "" {
		t.Fatalf("the viewer link %q does not carry its secret in the fragment alone", link)
	}
	return frag.Get("k")
}

// canvasPixels reads noVNC's canvas (its backing store is the framebuffer
// at 1:1, whatever the CSS size).
func canvasPixels(t *testing.T, ctx context.Context) *image.RGBA {
	var res struct {
		W, H int
		B64  string
	}
	run(t, ctx, "read the canvas", chromedp.Evaluate(`(() => {
		const c = document.querySelector('#screen canvas');
		const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
		let s = ''; for (let i = 0; i < d.length; i += 8192) s += String.fromCharCode.apply(null, d.subarray(i, i + 8192));
		return {w: c.width, h: c.height, b64: btoa(s)};
	})()`, &res))
	b, err := base64.StdEncoding.DecodeString(res.B64)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, res.W, res.H))
	copy(img.Pix, b)
	return img
}

// canvasPoint is where framebuffer pixel (x, y) is on the page.
func canvasPoint(t *testing.T, ctx context.Context, x, y int) (float64, float64) {
	var p []float64
	run(t, ctx, "locate the canvas", chromedp.Evaluate(fmt.Sprintf(`(() => {
		const c = document.querySelector('#screen canvas'); const r = c.getBoundingClientRect();
		return [r.left + (%d + 0.5) * r.width / c.width, r.top + (%d + 0.5) * r.height / c.height];
	})()`, x, y), &p))
	return p[0], p[1]
}

func waitJS(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	testbed.Eventually(t, 20*time.Second, what, func() bool {
		var ok bool
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return chromedp.Run(tctx, chromedp.Evaluate(cond, &ok)) == nil && ok
	})
}

// clickButton waits for the page to offer the button (it follows the
// lease, as the page last heard of it), then clicks it.
func clickButton(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	waitJS(t, ctx, id+" is offered", fmt.Sprintf(`!document.getElementById(%q).disabled`, id))
	run(t, ctx, "click "+id, chromedp.Click("#"+id, chromedp.ByQuery))
}

// TestBrowserViewerDesktop drives the viewer page in Chromium against a
// real Xvnc: the canvas shows the mirror's pixels, a click in the page
// lands on the X server and takes the limb over, the buttons take over,
// hand back, pause and resume, and the overlay draws the agent's click.
func TestBrowserViewerDesktop(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	v.Run(t, "xsetroot", "-solid", "#2050a0")
	v.Background(t, "xterm", "-geometry", "50x12+40+40", "-e", "sh", "-c", "echo viewer-pixels; sleep 600")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	ctx := browser(t)
	run(t, ctx, "open the limb page", chromedp.Navigate(viewerURL(t, c, id, "fit=0")))
	waitJS(t, ctx, "noVNC connected", `document.body.dataset.connected === '1'`)

	testbed.Eventually(t, 20*time.Second, "canvas pixels equal the limb's framebuffer", func() bool {
		return diffPixels(canvasPixels(t, ctx), mirror(t, c, id), 0) == 0
	})
	if diff := diffPixels(mirror(t, c, id), v.Capture(t), 0); diff != 0 {
		t.Logf("mirror vs X capture differs in %d pixels (the screen moved)", diff)
	}

	// The overlay shows an agent's click where it landed.
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire", Reason: "filling the form"})
	gen := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Geometry.Generation
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(500), Y: intp(400), Generation: &gen})
	px, py := canvasPoint(t, ctx, 500, 400)
	waitJS(t, ctx, "the overlay marks the agent's click", fmt.Sprintf(`(() => {
		const o = document.getElementById('overlay'); const s = document.getElementById('stage').getBoundingClientRect();
		const d = o.getContext('2d').getImageData(Math.floor(%f - s.left), Math.floor(%f - s.top), 1, 1).data;
		return d[3] > 0 && d[0] > 200 && d[1] < 80 && d[2] > 150;
	})()`, px, py))
	waitJS(t, ctx, "the banner shows the agent and its reason", `document.getElementById('lease').textContent.includes('filling the form')`)

	// A click in the page lands on the remote and takes the limb over.
	x, y := canvasPoint(t, ctx, 321, 123)
	run(t, ctx, "click in the page", chromedp.MouseClickXY(x, y))
	if x2, y2 := canvasPoint(t, ctx, 321, 123); x2 != x || y2 != y {
		t.Fatalf("the canvas moved under the click: (321,123) was at %.1f,%.1f and is now at %.1f,%.1f", x, y, x2, y2)
	}
	waitPointer(t, v, 321, 123)
	_, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(5), Y: intp(5), Generation: &gen})
	if client.Code(err) != wire.LeaseRevoked {
		t.Fatalf("agent act after the person clicked: %v, want LEASE_REVOKED", err)
	}
	if o := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation; !o.Lease.HumanTookOver {
		t.Fatalf("lease after the person clicked: %+v", o.Lease)
	}
	// Hand back, then Take over with the button.
	clickButton(t, ctx, "handback")
	testbed.Eventually(t, 10*time.Second, "handed back", func() bool {
		_, err := do(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
		return err == nil
	})
	clickButton(t, ctx, "takeover")
	testbed.Eventually(t, 10*time.Second, "taken over", func() bool {
		return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Lease.HumanTookOver
	})
	if _, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(5), Y: intp(5), Generation: &gen}); client.Code(err) != wire.LeaseRevoked {
		t.Fatalf("agent act after Take over: %v", err)
	}
	clickButton(t, ctx, "handback")
	testbed.Eventually(t, 10*time.Second, "handed back again", func() bool {
		_, err := do(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
		return err == nil
	})
	// Pause / Resume.
	clickButton(t, ctx, "pause")
	testbed.Eventually(t, 10*time.Second, "paused", func() bool {
		_, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(7), Y: intp(7), Generation: &gen})
		return client.Code(err) == wire.LeaseRevoked
	})
	waitJS(t, ctx, "the banner shows the pause", `document.body.dataset.paused === '1'`)
	clickButton(t, ctx, "resume")
	testbed.Eventually(t, 10*time.Second, "resumed", func() bool {
		_, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(9), Y: intp(9), Generation: &gen})
		return err == nil
	})
	waitPointer(t, v, 9, 9)
}

// waitPointer waits for the X server's pointer to reach (x, y) and says
// where it is when it does not.
func waitPointer(t *testing.T, v interface{ MouseLocation(testing.TB) (int, int) }, x, y int) {
	t.Helper()
	var mx, my int
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if mx, my = v.MouseLocation(t); mx == x && my == y {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the X server's pointer is at %d,%d after 10s, want %d,%d", mx, my, x, y)
}

// TestBrowserViewerRDPCanvas: the canvas of an RDP limb's page equals its
// framebuffer.
func TestBrowserViewerRDPCanvas(t *testing.T) {
	srv, c, id := openRDPShadow(t, 640, 480)
	srv.Run(t, "xsetroot", "-solid", "#40a060")
	srv.Background(t, "xterm", "-geometry", "40x10+60+60", "-e", "sh", "-c", "echo rdp-in-browser; sleep 600")
	testbed.Eventually(t, 20*time.Second, "the mirror matches the X server", func() bool {
		return diffPixels(mirror(t, c, id), srv.Capture(t), 8) == 0
	})
	ctx := browser(t)
	run(t, ctx, "open the limb page", chromedp.Navigate(viewerURL(t, c, id, "fit=0")))
	waitJS(t, ctx, "noVNC connected", `document.body.dataset.connected === '1'`)
	testbed.Eventually(t, 20*time.Second, "canvas pixels equal the RDP limb's framebuffer", func() bool {
		return diffPixels(canvasPixels(t, ctx), mirror(t, c, id), 0) == 0
	})

	// The index lists the limb with a thumbnail of its picture.
	run(t, ctx, "open the index", chromedp.Navigate(viewerURL(t, c, "", "")))
	waitJS(t, ctx, "the index shows the limb's thumbnail", fmt.Sprintf(`(() => {
		const img = document.querySelector('a.card[data-limb=%q] img');
		return !!img && img.naturalWidth === 320 && img.naturalHeight === 240;
	})()`, id))

	// A read-only page draws the picture but its clicks reach nothing.
	ro := linkWith(t, must(t, c, wire.ViewerArgs{Action: "watch", LimbID: id}).Viewer.URL, "fit=0")
	run(t, ctx, "open the read-only page", chromedp.Navigate(ro))
	waitJS(t, ctx, "noVNC connected read-only", `document.body.dataset.connected === '1' && document.body.classList.contains('readonly')`)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	gen := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Geometry.Generation
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(30), Y: intp(40), Generation: &gen})
	testbed.Eventually(t, 10*time.Second, "pointer at 30,40", func() bool { x, y := srv.MouseLocation(t); return x == 30 && y == 40 })
	x, y := canvasPoint(t, ctx, 200, 100)
	run(t, ctx, "click in the read-only page", chromedp.MouseClickXY(x, y))
	// The agent's next act is served after the page's click was handled
	// (or dropped): the agent still holds the limb.
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(31), Y: intp(41), Generation: &gen})
	if mx, my := srv.MouseLocation(t); mx == 200 && my == 100 {
		t.Fatal("a read-only page moved the remote pointer")
	}
}

// TestBrowserViewerTerminal: typing in the terminal view reaches the shell
// (a file written by the shell on the machine).
func TestBrowserViewerTerminal(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	r := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "acquire"})
	must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: r.LimbID}, Text: strp("echo scrollback-$((40+2))\n")})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "text", Text: strp("scrollback-42"), TimeoutMs: intp(20000)})

	ctx := browser(t)
	run(t, ctx, "open the terminal page", chromedp.Navigate(viewerURL(t, c, r.LimbID, "")))
	waitJS(t, ctx, "xterm shows the scrollback", `(() => { const e = document.querySelector('.xterm-rows'); return !!e && e.textContent.includes('scrollback-42'); })()`)
	out := filepath.Join(t.TempDir(), "typed")
	// Text arrives as the browser's text input (as from an input method),
	// Enter as a key press.
	run(t, ctx, "type in the terminal", chromedp.Click(".xterm", chromedp.ByQuery),
		chromedp.Focus(".xterm-helper-textarea", chromedp.ByQuery),
		input.InsertText("echo from-the-browser > "+out), chromedp.KeyEvent(kb.Enter))
	testbed.Eventually(t, 15*time.Second, "the shell wrote the file", func() bool {
		b, err := os.ReadFile(out)
		return err == nil && strings.TrimSpace(string(b)) == "from-the-browser"
	})
	if _, err := do(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: r.LimbID}, Text: strp("x")}); client.Code(err) != wire.LeaseRevoked {
		t.Fatalf("agent input after the person typed: %v", err)
	}
}

// TestBrowserViewerRefusesStrangers: no secret, a wrong one, one sent as
// a cookie or in the query, a foreign Origin, another site's request or a
// foreign Host get nothing; the pages themselves carry no data.
func TestBrowserViewerRefusesStrangers(t *testing.T) {
	d := startDaemon(t)
	c := dial(t, d, "person")
	link := must(t, c, wire.ViewerArgs{}).Viewer.URL
	secret := linkSecret(t, link)
	u, _ := url.Parse(link)
	base := "http://" + u.Host
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path string, hdr map[string]string) (int, string) {
		req, _ := http.NewRequest(method, base+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if h := hdr["Host"]; h != "" {
			req.Host = h
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		if resp.StatusCode != http.StatusSwitchingProtocols {
			io.Copy(&b, resp.Body)
		}
		return resp.StatusCode, b.String()
	}
	get := func(path string, hdr map[string]string) int { code, _ := send(http.MethodGet, path, hdr); return code }
	post := func(path string, hdr map[string]string) int { code, _ := send(http.MethodPost, path, hdr); return code }
	bearer := "Bearer " + secret
	ws := func(extra map[string]string) map[string]string {
		m := map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	for _, tc := range []struct {
		name string
		code int
		got  int
	}{
		{"no secret", 401, get("/api/limbs", nil)},
		{"wrong secret", 401, get("/api/limbs", map[string]string{"Authorization": "Bearer 00" + secret[2:]})},
		{"the secret in the query", 401, get("/api/limbs?k="+secret, nil)},
		{"the secret as the old cookie", 401, get("/api/limbs", map[string]string{"Cookie": "dvv_viewer=" + secret})},
		{"bearer", 200, get("/api/limbs", map[string]string{"Authorization": bearer})},
		{"thumbnail without the secret", 401, get("/thumb/x", nil)},
		{"foreign Origin", 403, get("/api/limbs", map[string]string{"Authorization": bearer, "Origin": "http://evil.example"})},
		{"another port's page", 403, get("/api/limbs", map[string]string{"Authorization": bearer, "Origin": "http://127.0.0.1:1"})},
		{"another site's request", 403, get("/api/limbs", map[string]string{"Authorization": bearer, "Sec-Fetch-Site": "same-site"})},
		{"foreign Host (DNS rebinding)", 403, get("/api/limbs", map[string]string{"Authorization": bearer, "Host": "evil.example"})},
		{"a page under a foreign Host", 403, get("/", map[string]string{"Host": "evil.example:" + u.Port()})},
		{"state change without Origin", 403, post("/api/all/pause", map[string]string{"Authorization": bearer})},
		{"state change from a foreign Origin", 403, post("/api/all/pause", map[string]string{"Authorization": bearer, "Origin": "http://evil.example"})},
		{"WebSocket from a foreign Origin", 403, get("/ws/events/x", ws(map[string]string{"Sec-WebSocket-Protocol": "dvv, dvv-key." + secret, "Origin": "http://evil.example"}))},
		{"WebSocket without Origin", 403, get("/ws/events/x", ws(map[string]string{"Sec-WebSocket-Protocol": "dvv, dvv-key." + secret}))},
		{"WebSocket without the secret", 401, get("/ws/events/x", ws(map[string]string{"Sec-WebSocket-Protocol": "dvv", "Origin": base}))},
		{"WebSocket with the secret, no such limb", 404, get("/ws/events/x", ws(map[string]string{"Sec-WebSocket-Protocol": "dvv, dvv-key." + secret, "Origin": base}))},
	} {
		if tc.got != tc.code {
			t.Errorf("%s: HTTP %d, want %d", tc.name, tc.got, tc.code)
		}
	}
	// The pages load without a secret (a navigation cannot send one) and
	// hold nothing of dvvd's.
	for _, path := range []string{"/", "/limb/x", "/assets/common.js"} {
		code, body := send(http.MethodGet, path, nil)
		if code != 200 || strings.Contains(body, secret) {
			t.Errorf("GET %s without a secret: HTTP %d, carries the secret: %v", path, code, strings.Contains(body, secret))
		}
	}
	// The read-only link cannot change anything.
	ro := linkSecret(t, must(t, c, wire.ViewerArgs{Action: "watch"}).Viewer.URL)
	if code := post("/api/all/pause", map[string]string{"Authorization": "Bearer " + ro, "Origin": base}); code != 403 {
		t.Errorf("read-only pause: HTTP %d", code)
	}
	if code := post("/api/all/resume", map[string]string{"Authorization": bearer, "Origin": base}); code != 200 {
		t.Errorf("resume with the secret and our Origin: HTTP %d", code)
	}
}
