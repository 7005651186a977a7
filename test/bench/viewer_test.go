//go:build bench

package bench

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"image"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// pageProbe is injected into every page before its scripts: it watches
// one canvas pixel for a colour and notes when it showed.
const pageProbe = `
(() => {
  window.__watch = (x, y, r, g, b) => {
    window.__seen = 0;
    const f = () => {
      const c = document.querySelector('#screen canvas');
      if (c && c.width) {
        const d = c.getContext('2d').getImageData(x, y, 1, 1).data;
        if (Math.abs(d[0] - r) < 9 && Math.abs(d[1] - g) < 9 && Math.abs(d[2] - b) < 9) { window.__seen = performance.timeOrigin + performance.now(); return; }
      }
      setTimeout(f, 1);
    };
    f();
  };
  // Updates drawn: noVNC copies its back buffer to the visible canvas
  // once per update (Display.flip). One picture may take several
  // updates (Xvnc sends a photograph as JPEG, then again losslessly).
  window.__frames = 0;
  const draw = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function (img, ...rest) {
    if (img instanceof HTMLCanvasElement && this.canvas.closest('#screen')) window.__frames++;
    return draw.call(this, img, ...rest);
  };
})();
`

const anchorPage = `<!doctype html><meta charset="utf-8"><div id="screen" style="width:100%;height:95vh"></div>
<script type="module">
import RFB from './core/rfb.js';
const rfb = new RFB(document.getElementById('screen'), 'ws://' + location.host + '/websockify', { wsProtocols: ['binary'] });
rfb.addEventListener('connect', () => { document.body.dataset.connected = '1'; });
</script>`

type tab struct {
	name string
	ctx  context.Context
	port string // the server's port: bytes it sent are counted by the kernel
}

func startChromium(t *testing.T) context.Context {
	t.Helper()
	testbed.Need(t, "chromium")
	profile, err := os.MkdirTemp("", "dvv-bench-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath("/usr/bin/chromium"),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-timer-throttling", true), chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1400, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA(); os.RemoveAll(profile) })
	if err := chromedp.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// openTab opens u in a Chromium of its own: a background tab of a shared
// browser would not draw (no animation frames while hidden).
func openTab(t *testing.T, name, u string) tab {
	t.Helper()
	pu, _ := url.Parse(u)
	port := pu.Port()
	ctx := startChromium(t)
	tb := tab{name: name, ctx: ctx, port: port}
	tctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	err := chromedp.Run(tctx, chromedp.Navigate(u), chromedp.Evaluate(pageProbe, nil))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for !tb.bool(t, `document.body.dataset.connected === '1' && !!document.querySelector('#screen canvas')`) {
		if time.Now().After(deadline) {
			var html string
			tb.eval(t, `location.href + ' ' + document.body.outerHTML.slice(0, 600)`, &html)
			t.Fatalf("%s never connected: %s", name, html)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return tb
}

func (tb tab) eval(t *testing.T, js string, out any) {
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, out)); err != nil {
		t.Fatalf("%s: %v", tb.name, err)
	}
}

func (tb tab) bool(t *testing.T, js string) bool {
	var b bool
	tb.eval(t, js, &b)
	return b
}

// frames is how many updates the page has shown so far.
func (tb tab) frames(t *testing.T) float64 {
	var n float64
	tb.eval(t, `window.__frames`, &n)
	return n
}

// received is what the server on the tab's port has sent on its
// established connections and the browser acknowledged (the kernel's
// tcp_info, read with ss): the same count for dvvd and websockify.
func (tb tab) received() float64 {
	out, _ := exec.Command("ss", "-tinH", "state", "established", "( sport = :"+tb.port+" )").Output()
	var total float64
	for _, m := range ackedRe.FindAllSubmatch(out, -1) {
		n, _ := strconv.ParseFloat(string(m[1]), 64)
		total += n
	}
	return total
}

var ackedRe = regexp.MustCompile(`bytes_acked:(\d+)`)

// TestViewerBench: remote change → canvas latency, bytes per second to the
// browser, with noVNC straight to the same Xvnc through websockify as the
// anchor in the same run; an agent's screen/click with and without three
// viewers; dvvd's RSS with a browser that never reads.
func TestViewerBench(t *testing.T) {
	const W, H = 1024, 768
	trace := newHopTrace(t) // DVV_HOPTRACE=1: each change's stages through dvvd
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: W, Height: H})
	v.Run(t, "xsetroot", "-solid", "#102030")
	d := startDvvd(t)
	c := d.dial(t)
	id := openVNC(t, c, v.Port)
	link, _ := url.Parse(must(t, c, wire.ViewerArgs{LimbID: id}).Viewer.URL)
	link.RawQuery = "fit=0" // the secret stays in the fragment
	viewerURL := link.String()

	// The anchor: noVNC (the same files) served by websockify, straight to Xvnc.
	web := t.TempDir()
	if err := os.CopyFS(filepath.Join(web), os.DirFS("../../pkg/viewer/assets/dist/novnc")); err != nil {
		t.Fatalf("noVNC assets (run make web): %v", err)
	}
	os.WriteFile(filepath.Join(web, "anchor.html"), []byte(anchorPage), 0o644)
	wsPort := testbed.FreePort(t)
	testbed.Start(t, "websockify", exec.Command("websockify", "--web", web, fmt.Sprintf("127.0.0.1:%d", wsPort), fmt.Sprintf("127.0.0.1:%d", v.Port)))
	testbed.WaitTCP(t, fmt.Sprintf("127.0.0.1:%d", wsPort), 15*time.Second)

	dvv := openTab(t, "dvv viewer", viewerURL)
	anchor := openTab(t, "noVNC → websockify → Xvnc", fmt.Sprintf("http://127.0.0.1:%d/anchor.html", wsPort))
	tabs := []tab{dvv, anchor}

	// 1. Latency: a full-screen colour change until the canvas shows it.
	// Our RFB client on both paths (through dvvd's page WebSocket, and
	// straight to Xvnc, noVNC's encodings) watches the same pixel beside
	// the browsers: the part of a gap that is dvvd's, not the page's.
	encs := &rfb.Config{Shared: true, Encodings: []int32{rfb.EncCopyRect, rfb.EncTight, rfb.EncZRLE}, JPEGQuality: 7}
	_, goDvv := goViewerConn(t, viewerURL, id, encs)
	goDirect, err := rfb.Dial(context.Background(), v.Addr, encs)
	if err != nil {
		t.Fatal(err)
	}
	go goDirect.Run()
	if trace != nil {
		trace.names[goDvv.Framebuffer()], trace.names[goDirect.Framebuffer()] = "client via dvvd", "client direct"
	}
	trace.skip()
	colours := [][3]int{{0xc0, 0x30, 0x30}, {0x30, 0xc0, 0x60}, {0x20, 0x40, 0xd0}, {0xe0, 0xe0, 0x40}}
	lat := make([]durations, len(tabs))
	var goLat [2]durations
	// Xvnc writes an update to its clients one after the other, the newest
	// connection first, so whichever path connected last sees each change
	// about a client's write earlier. Half the changes are made with dvvd
	// connected first (served last), then the limb reconnects and the other
	// half are made with dvvd served first; each half is reported too.
	var halves [2][]durations
	for k := range halves {
		halves[k] = make([]durations, len(tabs))
	}
	// change sets the root to col and returns when each of our clients and
	// each page showed it, how long after.
	change := func(col [3]int) (goAt [2]time.Duration, pageAt []time.Duration, t0 time.Time) {
		for _, tb := range tabs {
			var ok bool
			tb.eval(t, fmt.Sprintf(`(window.__watch(700, 500, %d, %d, %d), true)`, col[0], col[1], col[2]), &ok)
		}
		var seen [2]chan time.Time
		for k, c := range []*rfb.Client{goDvv, goDirect} {
			seen[k] = make(chan time.Time, 1)
			go watchPixel(c.Framebuffer(), 700, 500, col, seen[k])
		}
		t0 = time.Now()
		v.Run(t, "xsetroot", "-solid", fmt.Sprintf("#%02x%02x%02x", col[0], col[1], col[2]))
		for k := range seen {
			select {
			case at := <-seen[k]:
				goAt[k] = at.Sub(t0)
			case <-time.After(10 * time.Second):
				t.Fatalf("our RFB client never showed colour %v", col)
			}
		}
		for _, tb := range tabs {
			deadline := time.Now().Add(10 * time.Second)
			for {
				var seen float64
				tb.eval(t, `window.__seen`, &seen)
				if seen > 0 {
					pageAt = append(pageAt, time.Duration(seen*1e6)-time.Duration(t0.UnixNano()))
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s never showed colour %v", tb.name, col)
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
		return goAt, pageAt, t0
	}
	const changes = 80
	for i := 0; i < changes; i++ {
		if i == changes/2 {
			must(t, c, wire.ReconnectArgs{Target: wire.Target{LimbID: id}})
			// Unmeasured: every path shows a change made on the new
			// connection before the next half begins.
			change([3]int{0x10, 0x20, 0x30})
		}
		goAt, pageAt, t0 := change(colours[i%len(colours)])
		for k := range goAt {
			goLat[k] = append(goLat[k], goAt[k])
		}
		for k, d := range pageAt {
			lat[k] = append(lat[k], d)
			halves[i*2/changes][k] = append(halves[i*2/changes][k], d)
		}
		if trace != nil {
			seen := map[string]time.Time{}
			for k, tb := range tabs {
				seen["browser: "+tb.name] = t0.Add(pageAt[k])
			}
			t.Logf("change %d:%s", i, trace.change(t0, seen))
		}
	}
	rows := []string{"| path | p50 | p90 | dvvd served last: p50 / p90 | dvvd served first: p50 / p90 |", "| --- | --- | --- | --- | --- |"}
	for k, tb := range tabs {
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s / %s | %s / %s |", tb.name, ms(lat[k].pct(0.5)), ms(lat[k].pct(0.9)),
			ms(halves[0][k].pct(0.5)), ms(halves[0][k].pct(0.9)), ms(halves[1][k].pct(0.5)), ms(halves[1][k].pct(0.9))))
	}
	rows = append(rows, fmt.Sprintf("| our RFB client through dvvd's page WebSocket | %s | %s | | |", ms(goLat[0].pct(0.5)), ms(goLat[0].pct(0.9))),
		fmt.Sprintf("| our RFB client straight to Xvnc | %s | %s | | |", ms(goLat[1].pct(0.5)), ms(goLat[1].pct(0.9))))
	goDvv.Close()
	goDirect.Close()
	report(t, fmt.Sprintf("Remote change → browser canvas, %dx%d Xvnc, full-screen colour change (xsetroot), %d changes, half of them with dvvd connected to Xvnc last", W, H, changes), rows...)
	if trace != nil {
		report(t, "Stages of each change (DVV_HOPTRACE=1)", trace.table()...)
	}

	// 2. Bytes per second to the browser.
	rate := func(what string, start func() *testbed.Proc) {
		p := start()
		time.Sleep(1500 * time.Millisecond) // warm-up, then an 8 s window: what is measured
		b0 := []float64{dvv.received(), anchor.received()}
		f0 := []float64{dvv.frames(t), anchor.frames(t)}
		t0 := time.Now()
		time.Sleep(8 * time.Second)
		el := time.Since(t0).Seconds()
		b1 := []float64{dvv.received(), anchor.received()}
		f1 := []float64{dvv.frames(t), anchor.frames(t)}
		p.Kill()
		rows := []string{"| path | bytes/s | per minute | ratio to anchor | updates drawn/s | KiB per update drawn |", "| --- | --- | --- | --- | --- | --- |"}
		a := (b1[1] - b0[1]) / el
		for k, tb := range tabs {
			r := (b1[k] - b0[k]) / el
			fr := (f1[k] - f0[k]) / el
			rows = append(rows, fmt.Sprintf("| %s | %.0f KiB/s | %.1f MiB | %.2f | %.1f | %.0f |", tb.name, r/1024, r*60/(1<<20), r/a, fr, r/1024/max(fr, 0.01)))
		}
		report(t, "Bytes to the browser: "+what, rows...)
	}
	scrolling := func() *testbed.Proc {
		return v.Background(t, "xterm", "-geometry", "140x45+0+0", "-fa", "DejaVu Sans Mono", "-fs", "10", "-e", "sh", "-c", "while :; do ls -lR /usr/share/doc; done")
	}
	rate("scrolling xterm (140x45, ls -lR in a loop)", scrolling)
	noise := t.TempDir()
	for i := 0; i < 4; i++ {
		if out, err := exec.Command("convert", "-size", fmt.Sprintf("%dx%d", W, H), "xc:", "+noise", "Random", filepath.Join(noise, fmt.Sprintf("n%d.png", i))).CombinedOutput(); err != nil {
			t.Fatalf("convert: %v %s", err, out)
		}
	}
	video := func() *testbed.Proc {
		return v.Background(t, "sh", "-c", "while :; do for i in 0 1 2 3; do display -window root "+noise+"/n$i.png; done; done")
	}
	rate("full-screen noise, video-like (display -window root, 4 random images in a loop)", video)
	perFrame(t, v, noise, viewerURL, id)

	// 3. An agent's screen and click with and without three viewers, while
	// an xterm scrolls (so the viewers have work).
	scroll := scrolling()
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	gen := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Geometry.Generation
	agent := func() (durations, durations) {
		scr := timeN(60, func() { must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}}) })
		x, y := 0, 0
		clk := timeN(200, func() {
			x, y = (x+7)%W, (y+5)%H
			must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: &x, Y: &y, Generation: &gen})
		})
		return scr, clk
	}
	for _, tb := range tabs { // the two measuring tabs leave first
		chromedp.Cancel(tb.ctx)
	}
	// dvvd's own cost: three viewers that decode in this process, so no
	// browser competes with dvvd for the two cores.
	attach, detach := inProcessViewers(t, viewerURL, id)
	inProc := measureViewerCost(t, d, c, id, W, H, attach, detach, selfCPU)
	report(t, fmt.Sprintf("Agent `screen` with three viewers decoding in the test process (xterm scrolling, 1024x768, %d pairs of %d screens, ABBA)", costPairs, costPerSide),
		inProc.rows("bench process (the agent's client; with viewers, their decoding)")...)
	// The same with the viewers in a process of their own at nice 19: the
	// cores go to dvvd and the agent first, so what is left is dvvd's
	// work for the viewers (one shared planning and encoding a frame, three
	// writes), not their decoding.
	nv := startNicedViewers(t, viewerURL, id)
	niced := measureViewerCost(t, d, c, id, W, H,
		func() { nv.tell(t, "attach", "ready") },
		func() { nv.tell(t, "detach", "gone"); sessionsEnded(t, viewerURL) },
		nv.cpu)
	report(t, fmt.Sprintf("Agent `screen` with three viewers decoding in a process of their own at nice 19 (xterm scrolling, 1024x768, %d pairs of %d screens, ABBA)", costPairs, costPerSide),
		niced.rows("the viewers' process (nice 19)")...)
	s0, c0 := agent()
	for i := 0; i < 3; i++ {
		openTab(t, fmt.Sprintf("viewer %d", i+1), viewerURL)
	}
	s3, c3 := agent()
	scroll.Kill()
	report(t, "Agent latency with and without three browser viewers (xterm scrolling, 1024x768, same run; the three Chromiums share the two cores with dvvd)",
		"| op | no viewer p50 / p90 | three viewers p50 / p90 |", "| --- | --- | --- |",
		fmt.Sprintf("| `screen` (full PNG) | %s / %s | %s / %s |", ms(s0.pct(0.5)), ms(s0.pct(0.9)), ms(s3.pct(0.5)), ms(s3.pct(0.9))),
		fmt.Sprintf("| `click` move | %s / %s | %s / %s |", ms(c0.pct(0.5)), ms(c0.pct(0.9)), ms(c3.pct(0.5)), ms(c3.pct(0.9))))

	// 4. dvvd's RSS with a browser that connects, asks for updates and
	// never reads, while the whole screen changes.
	rss0 := d.rssKiB()
	vid := video()
	stalled := stallDesktop(t, viewerURL, id)
	peak := rss0
	var samples []int
	for i := 0; i < 30; i++ {
		time.Sleep(time.Second) // one RSS sample a second for 30 s: what is measured
		r := d.rssKiB()
		samples = append(samples, r)
		peak = max(peak, r)
	}
	vid.Kill()
	deadline := time.Now().Add(30 * time.Second)
	for !stalled.dropped() && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	dropped := stalled.dropped()
	report(t, "dvvd RSS with a stalled browser (never reads) on a full-screen noise workload, 30 s",
		"| before | peak | at 10 s | at 20 s | at 30 s | stalled tab disconnected by dvvd |", "| --- | --- | --- | --- | --- | --- |",
		fmt.Sprintf("| %.1f MiB | %.1f MiB | %.1f MiB | %.1f MiB | %.1f MiB | %v |", float64(rss0)/1024, float64(peak)/1024,
			float64(samples[9])/1024, float64(samples[19])/1024, float64(samples[29])/1024, dropped))
}

// watchPixel sends the time pixel (x, y) of buf first shows colour c.
func watchPixel(buf *fb.Buffer, x, y int, c [3]int, seen chan<- time.Time) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		changed := buf.Changed()
		img, _ := buf.Snapshot(image.Rect(x, y, x+1, y+1))
		if len(img.Pix) >= 3 && int(img.Pix[0]) == c[0] && int(img.Pix[1]) == c[1] && int(img.Pix[2]) == c[2] {
			seen <- time.Now()
			return
		}
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// selfCPU is the CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countingConn counts the bytes read through it.
type countingConn struct {
	net.Conn
	n atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// perFrame compares bytes per frame at equal settings, which bytes per
// second cannot (each path sends as many frames as its viewer takes): our
// RFB client with noVNC's encodings (Tight, JPEG quality level 6) on the
// page's WebSocket, and the same client straight on Xvnc, while 12 noise
// pictures are shown one at a time, each given time to arrive whole.
func perFrame(t *testing.T, v *testbed.VNC, noise, viewerURL, id string) {
	encs := &rfb.Config{Shared: true, Encodings: []int32{rfb.EncCopyRect, rfb.EncTight, rfb.EncZRLE}, JPEGQuality: 7}
	raw, err := net.Dial("tcp", v.Addr)
	if err != nil {
		t.Fatal(err)
	}
	direct := &countingConn{Conn: raw}
	dc, err := rfb.NewClient(context.Background(), direct, encs)
	if err != nil {
		t.Fatal(err)
	}
	go dc.Run()
	defer dc.Close()
	ours, oc := goViewerConn(t, viewerURL, id, encs)
	defer oc.Close()
	const frames = 12
	time.Sleep(time.Second)
	b0 := []int64{ours.n.Load(), direct.n.Load()}
	for i := 0; i < frames; i++ {
		// display exits 1 after setting the root window's picture: its
		// status says nothing here (the bytes counted do).
		v.Command("display", "-window", "root", filepath.Join(noise, fmt.Sprintf("n%d.png", i%4))).Run()
		time.Sleep(1500 * time.Millisecond) // the frame arrives whole on both paths
	}
	b1 := []int64{ours.n.Load(), direct.n.Load()}
	per := func(k int) float64 { return float64(b1[k]-b0[k]) / frames }
	report(t, "Bytes per full-screen noise frame at equal settings: our RFB client (Tight, JPEG quality level 6) on each path, 12 frames shown one at a time",
		"| path | KiB per frame | ratio to anchor |", "| --- | --- | --- |",
		fmt.Sprintf("| dvvd (viewer WebSocket) | %.0f | %.2f |", per(0)/1024, per(0)/per(1)),
		fmt.Sprintf("| Xvnc direct | %.0f | 1.00 |", per(1)/1024))
}

// goViewer attaches our RFB client to the page's desktop WebSocket, as
// noVNC would (same subprotocols, Origin and encodings).
func goViewer(t *testing.T, viewerURL, id string) *rfb.Client {
	t.Helper()
	_, v := goViewerConn(t, viewerURL, id, &rfb.Config{Shared: true, Encodings: []int32{rfb.EncCopyRect, rfb.EncTight, rfb.EncZRLE}, JPEGQuality: 7})
	return v
}

func goViewerConn(t *testing.T, viewerURL, id string, cfg *rfb.Config) (*countingConn, *rfb.Client) {
	t.Helper()
	conn, v, err := dialViewer(viewerURL, id, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return conn, v
}

// dialViewer opens the page's desktop WebSocket and runs our RFB client
// on it.
func dialViewer(viewerURL, id string, cfg *rfb.Config) (*countingConn, *rfb.Client, error) {
	u, _ := url.Parse(viewerURL)
	frag, _ := url.ParseQuery(u.Fragment)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, "ws://"+u.Host+"/ws/desktop/"+id, &websocket.DialOptions{
		Subprotocols: []string{"binary", "dvv-key." + frag.Get("k")},
		HTTPHeader:   http.Header{"Origin": []string{"http://" + u.Host}},
	})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("viewer WebSocket: %w", err)
	}
	ws.SetReadLimit(-1)
	conn := &countingConn{Conn: websocket.NetConn(context.Background(), ws, websocket.MessageBinary)}
	v, err := rfb.NewClient(ctx, conn, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("viewer RFB: %w", err)
	}
	go v.Run()
	return conn, v, nil
}

// stalledConn is a WebSocket client that completes the RFB handshake
// blindly, asks for update after update, and never reads.
type stalledConn struct {
	c    net.Conn
	mu   sync.Mutex
	gone bool
}

func (s *stalledConn) dropped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone
}

func stallDesktop(t *testing.T, viewerURL, id string) *stalledConn {
	t.Helper()
	u, _ := url.Parse(viewerURL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	key := make([]byte, 16)
	rand.Read(key)
	frag, _ := url.ParseQuery(u.Fragment)
	fmt.Fprintf(conn, "GET /ws/desktop/%s HTTP/1.1\r\nHost: %s\r\nOrigin: http://%s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %x\r\nSec-WebSocket-Protocol: binary, dvv-key.%s\r\n\r\n",
		id, u.Host, u.Host, key, frag.Get("k"))
	frame := func(p []byte) []byte {
		f := []byte{0x82}
		switch {
		case len(p) < 126:
			f = append(f, 0x80|byte(len(p)))
		default:
			f = append(f, 0x80|126)
			f = binary.BigEndian.AppendUint16(f, uint16(len(p)))
		}
		mask := []byte{1, 2, 3, 4}
		f = append(f, mask...)
		for i, b := range p {
			f = append(f, b^mask[i%4])
		}
		return f
	}
	s := &stalledConn{c: conn}
	conn.Write(frame([]byte("RFB 003.008\n")))
	conn.Write(frame([]byte{1}))          // security None
	conn.Write(frame([]byte{1}))          // shared
	enc := []byte{2, 0, 0, 1, 0, 0, 0, 0} // SetEncodings: Raw only, the largest updates
	conn.Write(frame(enc))
	go func() {
		req := []byte{3, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff} // non-incremental, whole frame
		for {
			conn.SetWriteDeadline(time.Now().Add(60 * time.Second))
			if _, err := conn.Write(frame(req)); err != nil {
				break // dvvd hung up (or our own deadline passed)
			}
			time.Sleep(50 * time.Millisecond)
		}
		s.mu.Lock()
		s.gone = true
		s.mu.Unlock()
	}()
	return s
}
