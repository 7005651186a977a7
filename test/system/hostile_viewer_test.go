package system_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestHostileUserLearnsNothingFromTheViewer attacks the browser viewer as
// another local user (nobody, through setpriv) while the person uses it,
// against the real dvvd, dvv, sshd and Chromium:
//
//   - `dvv viewer` opens the person's browser (Chromium, started the way
//     xdg-open starts it: the link or file as its argument); nobody then
//     reads every /proc/*/cmdline and /proc/*/environ and every file it can
//     in /tmp, /dev/shm and the runtime directory, and finds neither secret;
//   - the same Chromium, after the viewer page, visits a page nobody serves
//     on another 127.0.0.1 port: nothing it sends carries a secret (no
//     cookie at all), and that page's own script cannot read the viewer;
//   - the person types into an SSH limb's page (taking it over), then
//     closes the page: the limb is handed back and the agent's next acts
//     succeed, as for a desktop.
func TestHostileUserLearnsNothingFromTheViewer(t *testing.T) {
	testbed.Need(t, "setpriv", "chromium")
	testbed.NeedRoot(t, "acting as another user")
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)
	agent := func(args ...string) result { return d.run("agent", "", nil, args...) }
	if r := agent("control", "acquire", limb); r.code != 0 {
		t.Fatal(r)
	}

	// The secrets, as the person's own dvv is told them over the socket.
	full, viewerHost := viewerSecret(t, d, "viewer", "--json")
	readOnly, _ := viewerSecret(t, d, "viewer", "--read-only", "--json")

	// `dvv viewer LIMB` opens the browser through xdg-open.
	b := openerBrowser(t)
	r := d.run("shell-a", "", []string{"PATH=" + b.binDir + ":" + os.Getenv("PATH"), "DISPLAY=:77"}, "viewer", limb)
	if r.code != 0 {
		t.Fatal(r)
	}
	ctx := b.attach(t, "http://"+viewerHost+"/")
	waitPage(t, ctx, "the terminal page connected", `document.body.dataset.connected === '1' && !!document.querySelector('.xterm-rows')`)

	// (a) Nobody scans what another uid can read.
	hostile := hostileHelper(t)
	scan := hostile.scan(t, []string{full, readOnly}, b.profile, "/tmp", "/dev/shm", s.Home)
	t.Logf("nobody read %d command lines, %d environments, %d files", scan.Cmdlines, scan.Environs, scan.Files)
	if !scan.SawBrowser {
		t.Fatalf("the scan never read the browser's command line (the test would prove nothing): %+v", scan)
	}
	if len(scan.Hits) > 0 {
		t.Errorf("another user read the viewer's secret in: %s", strings.Join(scan.Hits, ", "))
	}

	// (b) The same browser visits a server of nobody's on another port.
	spy := hostile.spy(t)
	tab := b.newTab(t)
	run(t, tab, "visit the other user's page", chromedp.Navigate(fmt.Sprintf("http://%s/?viewer=%s&limb=%s", spy.addr, viewerHost, url.QueryEscape(limb))))
	report := spy.report(t)
	t.Logf("the other user's page, from the person's browser: %+v", report)
	got := spy.received()
	for name, secret := range map[string]string{"driving": full, "read-only": readOnly} {
		if strings.Contains(got, secret) {
			t.Errorf("the other user's server received the %s secret:\n%s", name, got)
		}
	}
	if strings.Contains(strings.ToLower(got), "\ncookie:") {
		t.Errorf("the browser sent the other user's server a cookie:\n%s", got)
	}
	if report.Fetch == "ok" || report.Socket == "open" {
		t.Errorf("the other user's page reached the viewer: %+v", report)
	}
	run(t, tab, "close the other user's page", page.Close())

	// (c) The person takes the SSH limb over by typing, then closes the page.
	typed := filepath.Join(s.RemoteHome, "typed-by-the-person")
	run(t, ctx, "type in the terminal", chromedp.Click(".xterm", chromedp.ByQuery),
		chromedp.Focus(".xterm-helper-textarea", chromedp.ByQuery),
		input.InsertText("echo person > "+typed), chromedp.KeyEvent(kb.Enter))
	testbed.Eventually(t, 15*time.Second, "the person's command ran", func() bool {
		b, _ := os.ReadFile(typed)
		return strings.TrimSpace(string(b)) == "person"
	})
	if r := agent("term", "send", limb, "true\n"); r.code == 0 || !strings.Contains(r.stderr, "LEASE_REVOKED") {
		t.Fatalf("the agent's act while the person drives: %v", r)
	}
	run(t, ctx, "close the viewer page", page.Close())
	testbed.Eventually(t, 10*time.Second, "the limb handed back to the agent", func() bool {
		return agent("control", "acquire", limb, "--wait-ms", "0").code == 0
	})
	back := filepath.Join(s.RemoteHome, "typed-by-the-agent")
	if r := agent("term", "send", limb, "echo agent > "+back+"\n"); r.code != 0 {
		t.Fatalf("the agent's act after the page closed: %v", r)
	}
	testbed.Eventually(t, 15*time.Second, "the agent's command ran", func() bool {
		b, _ := os.ReadFile(back)
		return strings.TrimSpace(string(b)) == "agent"
	})
}

// viewerSecret runs dvv with args (a viewer command with --json) and
// returns the secret its link carries and the viewer's host:port.
func viewerSecret(t *testing.T, d *daemon, args ...string) (secret, host string) {
	t.Helper()
	resp := response(t, d.must(args...))
	if resp.Viewer == nil {
		t.Fatalf("dvv %v answered no viewer", args)
	}
	u, err := url.Parse(resp.Viewer.URL)
	if err != nil {
		t.Fatal(err)
	}
	secret = u.Query().Get("k")
	if frag, err := url.ParseQuery(u.Fragment); secret == "" && err == nil {
		secret = frag.Get("k")
	}
	if len(secret) < 32 {
		t.Fatalf("no secret in the viewer link %q", resp.Viewer.URL)
	}
	return secret, u.Host
}

// personBrowser is the person's Chromium as their desktop starts it: a
// stand-in xdg-open on PATH runs Chromium with its argument, as the real
// one does with the desktop's browser; only the flags a headless test
// needs are added, and a DevTools port for the test to drive it.
type personBrowser struct {
	binDir  string // holds xdg-open
	profile string
	pidFile string
}

func openerBrowser(t *testing.T) *personBrowser {
	t.Helper()
	// Not t.TempDir: Chromium may still write its profile while it exits.
	profile, err := os.MkdirTemp("", "dvv-person-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	b := &personBrowser{binDir: t.TempDir(), profile: profile, pidFile: filepath.Join(t.TempDir(), "chromium.pid")}
	script := "#!/bin/sh\nunset DISPLAY\necho $$ > '" + b.pidFile + "'\n" +
		"exec /usr/bin/chromium --headless=new --no-sandbox --disable-gpu --no-first-run --no-default-browser-check " +
		"--disable-background-networking --disable-component-update --disable-sync --window-size=1400,1000 " +
		"--remote-debugging-port=0 --user-data-dir='" + profile + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(b.binDir, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if pb, err := os.ReadFile(b.pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(pb))); err == nil {
				syscall.Kill(pid, syscall.SIGTERM)
				for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
					time.Sleep(50 * time.Millisecond)
				}
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for os.RemoveAll(profile) != nil && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
	})
	return b
}

// attach connects to the browser the opener started and returns the tab
// whose address starts with prefix.
func (b *personBrowser) attach(t *testing.T, prefix string) context.Context {
	t.Helper()
	portFile := filepath.Join(b.profile, "DevToolsActivePort")
	// A first start in a fresh profile, on two cores busy with the other
	// test packages, has taken over 20 s to write its port and over 10 s
	// (chromedp's default) to answer on it.
	testbed.WaitFile(t, portFile, 60*time.Second)
	var ws string
	testbed.Eventually(t, 10*time.Second, "Chromium's DevTools address", func() bool {
		lines := strings.Fields(readFile(portFile))
		if len(lines) < 2 {
			return false
		}
		ws = "ws://127.0.0.1:" + lines[0] + lines[1]
		return true
	})
	actx, cancelA := chromedp.NewRemoteAllocator(context.Background(), ws, chromedp.NoModifyURL)
	bctx, cancelB := chromedp.NewContext(actx, chromedp.WithBrowserOption(chromedp.WithDialTimeout(60*time.Second)))
	t.Cleanup(func() { cancelB(); cancelA() })
	// The first Run of a context connects it; no deadline there, as
	// cancelling that Run's context would drop the connection.
	if err := chromedp.Run(bctx); err != nil {
		t.Fatalf("connect to the person's browser: %v", err)
	}
	var id target.ID
	var seen []string
	defer func() {
		if t.Failed() {
			t.Logf("the browser's tabs: %q", seen)
		}
	}()
	testbed.Eventually(t, 20*time.Second, "a tab on "+prefix, func() bool {
		infos, err := chromedp.Targets(bctx)
		if err != nil {
			seen = []string{err.Error()}
			return false
		}
		seen = seen[:0]
		for _, in := range infos {
			seen = append(seen, in.Type+" "+in.URL)
			if in.Type == "page" && strings.HasPrefix(in.URL, prefix) {
				id = in.TargetID
				return true
			}
		}
		return false
	})
	tctx, cancel := chromedp.NewContext(bctx, chromedp.WithTargetID(id))
	t.Cleanup(cancel)
	if err := chromedp.Run(tctx); err != nil {
		t.Fatalf("attach to the viewer tab: %v", err)
	}
	return tctx
}

// newTab opens another tab in the browser attach connected to.
func (b *personBrowser) newTab(t *testing.T) context.Context {
	t.Helper()
	lines := strings.Fields(readFile(filepath.Join(b.profile, "DevToolsActivePort")))
	actx, cancelA := chromedp.NewRemoteAllocator(context.Background(), "ws://127.0.0.1:"+lines[0]+lines[1], chromedp.NoModifyURL)
	ctx, cancelB := chromedp.NewContext(actx, chromedp.WithBrowserOption(chromedp.WithDialTimeout(60*time.Second)))
	t.Cleanup(func() { cancelB(); cancelA() })
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func waitPage(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	testbed.Eventually(t, 20*time.Second, what, func() bool {
		var ok bool
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return chromedp.Run(tctx, chromedp.Evaluate(cond, &ok)) == nil && ok
	})
}

// hostile runs this test binary as nobody: a copy of it in a directory
// nobody can read, roles chosen by DVV_HOSTILE_ROLE (hostileRole).
type hostile struct {
	bin string
	dir string // writable by nobody: the spy's log
}

func hostileHelper(t *testing.T) *hostile {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "dvv-hostile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o1777)
	self, _ := os.Executable()
	h := &hostile{bin: filepath.Join(dir, "hostile"), dir: dir}
	copyFile(t, self, h.bin, 0o755)
	return h
}

func (h *hostile) cmd(role string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("setpriv", append([]string{"--reuid=nobody", "--regid=nogroup", "--clear-groups", h.bin}, args...)...)
	cmd.Env = append([]string{"DVV_HOSTILE_ROLE=" + role, "PATH=/usr/bin:/bin"}, env...)
	return cmd
}

// scanResult is what the scan role saw.
type scanResult struct {
	Cmdlines, Environs, Files int
	SawBrowser                bool     // read a command line naming marker
	Hits                      []string // where a secret was found
}

// scan gives the secrets on stdin (never in an argument or the
// environment, where the scan itself would find them).
func (h *hostile) scan(t *testing.T, secrets []string, marker string, dirs ...string) scanResult {
	t.Helper()
	cmd := h.cmd("scan", []string{"DVV_SCAN_MARKER=" + marker}, dirs...)
	cmd.Stdin = strings.NewReader(strings.Join(secrets, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scan as nobody: %v\n%s", err, out)
	}
	var r scanResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("scan output: %v\n%s", err, out)
	}
	return r
}

// spyServer is nobody's HTTP server on 127.0.0.1: it logs every request
// whole, and its page tries to reach the viewer from the browser.
type spyServer struct {
	addr, log string
}

type spyReport struct {
	Fetch, Socket, Cookie, Storage string
}

func (h *hostile) spy(t *testing.T) *spyServer {
	t.Helper()
	s := &spyServer{log: filepath.Join(h.dir, "spy.log")}
	cmd := h.cmd("spy", []string{"DVV_SPY_LOG=" + s.log})
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the spy did not start: %v", err)
	}
	s.addr = strings.TrimSpace(line)
	return s
}

func (s *spyServer) received() string { return readFile(s.log) }

// report waits for the spy page's report of what its script could reach.
func (s *spyServer) report(t *testing.T) spyReport {
	t.Helper()
	var r spyReport
	testbed.Eventually(t, 20*time.Second, "the other user's page to report", func() bool {
		got := s.received()
		i := strings.Index(got, "REPORT ")
		if i < 0 {
			return false
		}
		line, _, _ := strings.Cut(got[i+len("REPORT "):], "\n")
		return json.Unmarshal([]byte(line), &r) == nil
	})
	return r
}

// hostileRole is this binary run as nobody; it returns the exit status.
func hostileRole(role string) int {
	switch role {
	case "scan":
		return scanRole(os.Args[1:])
	case "spy":
		return spyRole(os.Getenv("DVV_SPY_LOG"))
	}
	fmt.Fprintln(os.Stderr, "unknown role", role)
	return 2
}

func scanRole(dirs []string) int {
	var secrets []string
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			secrets = append(secrets, s)
		}
	}
	marker := os.Getenv("DVV_SCAN_MARKER")
	var r scanResult
	look := func(where string, b []byte) {
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				r.Hits = append(r.Hits, where)
			}
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if b, err := os.ReadFile(p + "/cmdline"); err == nil {
			r.Cmdlines++
			look(p+"/cmdline", b)
			if marker != "" && strings.Contains(string(b), marker) {
				r.SawBrowser = true
			}
		}
		if b, err := os.ReadFile(p + "/environ"); err == nil {
			r.Environs++
			look(p+"/environ", b)
		}
	}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return nil
			}
			f, err := os.Open(path)
			if err != nil {
				return nil
			}
			defer f.Close()
			b, _ := io.ReadAll(io.LimitReader(f, 64<<20))
			r.Files++
			look(path, b)
			return nil
		})
	}
	json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

// spyPage tries, from another origin on 127.0.0.1, what a hostile page
// would: read the viewer's API with the browser's credentials, open its
// event stream, and read whatever cookie or storage its own origin holds.
const spyPage = `<!doctype html><meta charset="utf-8"><title>elsewhere</title><script>
(async () => {
  const q = new URLSearchParams(location.search);
  const base = q.get('viewer'), limb = q.get('limb');
  const r = {};
  try { const x = await fetch('http://' + base + '/api/limbs', { credentials: 'include' }); r.fetch = x.ok ? 'ok' : 'status ' + x.status; }
  catch (e) { r.fetch = 'error ' + e; }
  r.socket = await new Promise((res) => {
    const ws = new WebSocket('ws://' + base + '/ws/events/' + encodeURIComponent(limb));
    ws.onopen = () => { res('open'); ws.close(); };
    ws.onerror = () => res('refused');
  });
  r.cookie = document.cookie;
  r.storage = JSON.stringify(sessionStorage) + JSON.stringify(localStorage);
  await fetch('/report', { method: 'POST', body: JSON.stringify(r) });
})();
</script>`

func spyRole(logPath string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(ln.Addr().String())
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s %s\nHost: %s\n", r.Method, r.URL.RequestURI(), r.Host)
		for k, vs := range r.Header {
			for _, v := range vs {
				fmt.Fprintf(&sb, "%s: %s\n", k, v)
			}
		}
		if r.URL.Path == "/report" {
			fmt.Fprintf(&sb, "REPORT %s\n", body)
		} else if len(body) > 0 {
			fmt.Fprintf(&sb, "\n%s\n", body)
		}
		logf.WriteString(sb.String() + "\n")
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, spyPage)
		}
	}))
	return 0
}
