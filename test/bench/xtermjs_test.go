//go:build bench

package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/dvvhq/dvv/pkg/vtscreen"
)

// xtermDist is xterm.js as the viewer embeds it (`make web` puts it there).
const xtermDist = "../../pkg/viewer/assets/dist/xterm/xterm.mjs"

// xtermPage loads xterm.js and offers two calls: __load fetches a stream
// into memory; __parse writes it to a fresh 120x40 Terminal (never opened:
// parsing and the buffer, no rendering) in 32 KiB writes, waits for the
// last write's callback, and returns the visible rows.
const xtermPage = `<!doctype html><meta charset="utf-8">
<script type="module">
import { Terminal } from './xterm.mjs';
const streams = {};
window.__load = async (name) => {
  streams[name] = new Uint8Array(await (await fetch('/stream/' + name)).arrayBuffer());
  return streams[name].length;
};
window.__parse = async (name) => {
  const data = streams[name];
  const term = new Terminal({ cols: 120, rows: 40 });
  for (let at = 0; at < data.length; at += 32768) term.write(data.subarray(at, at + 32768));
  await new Promise((done) => term.write('', done));
  const b = term.buffer.active, rows = [];
  for (let y = 0; y < term.rows; y++) rows.push(b.getLine(b.viewportY + y).translateToString(true));
  term.dispose();
  return rows.join('\n');
};
document.body.dataset.ready = '1';
</script>`

// xtermJS is headless Chromium with xtermPage open.
type xtermJS struct {
	ctx     context.Context
	browser int // the browser's PID: its CPU and its children's is the cost
}

// startXtermJS serves xterm.js, the page and streams on 127.0.0.1 and
// opens the page in headless Chromium.
func startXtermJS(t *testing.T, streams map[string][]byte) *xtermJS {
	t.Helper()
	lib, err := os.ReadFile(xtermDist)
	if err != nil {
		t.Fatalf("xterm.js is not built (%v): run `make web` first", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(xtermPage)) })
	mux.HandleFunc("/xterm.mjs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(lib)
	})
	mux.HandleFunc("/stream/", func(w http.ResponseWriter, r *http.Request) {
		data, ok := streams[strings.TrimPrefix(r.URL.Path, "/stream/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	ctx := startChromium(t)
	x := &xtermJS{ctx: ctx, browser: chromedp.FromContext(ctx).Browser.Process().Pid}
	x.run(t, "open the page", chromedp.Navigate("http://"+ln.Addr().String()+"/"),
		chromedp.WaitVisible(`body[data-ready="1"]`, chromedp.ByQuery))
	for name, data := range streams {
		var n int
		x.run(t, "load "+name, chromedp.Evaluate(fmt.Sprintf("__load(%q)", name), &n, awaitPromise))
		if n != len(data) {
			t.Fatalf("the page holds %d bytes of %s, not %d", n, name, len(data))
		}
	}
	return x
}

func awaitPromise(p *cdpruntime.EvaluateParams) *cdpruntime.EvaluateParams {
	return p.WithAwaitPromise(true)
}

func (x *xtermJS) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(x.ctx, 10*time.Minute)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("xterm.js: %s: %v", what, err)
	}
}

// parse has xterm.js parse a loaded stream; it returns the wall time, the
// CPU seconds of Chromium (all its processes) meanwhile, and the rows.
func (x *xtermJS) parse(t *testing.T, name string) (time.Duration, float64, []string) {
	var text string
	cpu0, t0 := treeTicks(x.browser), time.Now()
	x.run(t, "parse "+name, chromedp.Evaluate(fmt.Sprintf("__parse(%q)", name), &text, awaitPromise))
	return time.Since(t0), float64(treeTicks(x.browser)-cpu0) / 100, strings.Split(text, "\n")
}

// treeTicks is the user and system CPU ticks of pid and its descendants.
func treeTicks(pid int) int {
	type proc struct{ ppid, ticks int }
	procs := map[int]proc{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		ppid, _ := strconv.Atoi(f[1])
		u, _ := strconv.Atoi(f[11])
		k, _ := strconv.Atoi(f[12])
		procs[p] = proc{ppid, u + k}
	}
	in := func(p int) bool {
		for ; p > 1; p = procs[p].ppid {
			if p == pid {
				return true
			}
		}
		return false
	}
	total := 0
	for p, pr := range procs {
		if in(p) {
			total += pr.ticks
		}
	}
	return total
}

// checkXtermRows: xterm.js must show what dvv's screen shows for the same
// bytes, or it did not parse them all. Wide and emoji text may differ
// (each keeps its own width table): that is logged, not failed.
func checkXtermRows(t *testing.T, name string, data []byte, rows []string) {
	t.Helper()
	s := vtscreen.New(120, 40, nil)
	defer s.Close()
	for at := 0; at < len(data); at += 32 << 10 {
		s.Write(data[at:min(at+32<<10, len(data))])
	}
	want, _, _ := s.Text()
	if got, w := strings.Join(rows, "\n"), strings.Join(want, "\n"); got != w {
		if strings.Contains(name, "wide") {
			t.Logf("xterm.js shows %s differently from dvv (width tables):\n%s\n---\n%s", name, got, w)
			return
		}
		t.Fatalf("xterm.js shows %s differently from dvv:\n%s\n---\n%s", name, got, w)
	}
}
