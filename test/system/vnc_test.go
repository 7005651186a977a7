package system_test

import (
	"bufio"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// openVNC starts Xvnc and opens a perceiving limb to it, waiting until it
// is connected. VNC is always built in: any refusal fails the test.
func openVNC(t testing.TB, d *daemon) (*testbed.VNC, string) {
	t.Helper()
	x := testbed.StartXvnc(t, testbed.XvncOptions{})
	r := d.dvv("open", x.Addr, "--protocol", "vnc", "--perceive")
	if r.code != 0 {
		t.Fatal(r)
	}
	limb := strings.TrimSpace(r.stdout)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "10000")
	return x, limb
}

// status reads a limb's observation through `dvv status --json`.
func status(t *testing.T, d *daemon, session, limb string) *wire.Observation {
	t.Helper()
	r := d.run(session, "", nil, "status", limb, "--json")
	if r.code != 0 {
		t.Fatal(r)
	}
	o := response(t, r).Observation
	if o == nil {
		t.Fatalf("status --json has no observation: %v", r)
	}
	return o
}

// TestVNCInputAndFences drives a real Xvnc: the pointer lands where
// `dvv click` says, `dvv type` reaches an xterm, a resize raises the
// generation and fences a stale click, and a person's takeover revokes
// the shell's lease.
func TestVNCInputAndFences(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)

	o := status(t, d, "shell-a", limb)
	if o.State != wire.StateConnected || o.Geometry.Generation != 1 || o.Size != (wire.Size{W: 800, H: 600}) {
		t.Fatalf("status after connect: %+v", o)
	}
	if r := d.must("status", limb); !strings.Contains(r.stdout, "800x600") || !strings.Contains(r.stdout, "generation:") {
		t.Errorf("status: %v", r)
	}

	// Acting needs the lease.
	wantExit(t, d.dvv("click", limb, "10", "10", "--generation", "1"), wire.ExitLease, wire.LeaseNotHeld)
	d.must("control", "acquire", limb, "--reason", "system test")
	if r := d.must("limbs"); !strings.Contains(r.stdout, "held by you") {
		t.Errorf("limbs: %v", r)
	}
	// No screen read yet in this session: a click without --generation is unfenced.
	wantExit(t, d.dvv("click", limb, "10", "10"), wire.ExitFence, wire.Unfenced)

	shot := filepath.Join(t.TempDir(), "shot.png")
	r := d.must("screen", limb, "--out", shot)
	if !strings.Contains(r.stdout, shot) || !strings.Contains(r.stdout, "imageSpace") {
		t.Errorf("screen output: %v", r)
	}
	checkPNG(t, shot, 800, 600)

	// The pointer lands where the click says (X server's ground truth).
	d.must("click", limb, "123", "234", "--action", "move")
	testbed.Eventually(t, 10*time.Second, "the pointer at 123,234", func() bool {
		px, py := x.MouseLocation(t)
		return px == 123 && py == 234
	})
	d.must("click", limb, "321", "111", "--action", "move", "--generation", "1")
	testbed.Eventually(t, 10*time.Second, "the pointer at 321,111", func() bool {
		px, py := x.MouseLocation(t)
		return px == 321 && py == 111
	})
	wantExit(t, d.dvv("click", limb, "900", "10", "--generation", "1"), wire.ExitFence, wire.OutOfBounds)

	// Typing reaches an xterm running cat. The xterm's window is a large
	// repaint, so the screen is read (again) before typing.
	typed := x.CatTerm(t)
	testbed.Eventually(t, 15*time.Second, "dvv type to pass the fence", func() bool {
		d.dvv("wait", limb, "--until", "screen-stable", "--quiet-ms", "300", "--timeout-ms", "3000")
		d.must("screen", limb, "--out", shot)
		r := d.dvv("type", limb, "hello from dvv")
		if r.code == wire.ExitFence {
			return false
		}
		if r.code != 0 {
			t.Fatal(r)
		}
		return true
	})
	testbed.Eventually(t, 10*time.Second, "the typed text in the xterm", func() bool {
		b, _ := os.ReadFile(typed)
		return string(b) == "hello from dvv"
	})
	d.must("key", limb, "Enter")
	// Enter arrives as CR or, translated by the pty, as LF.
	testbed.Eventually(t, 10*time.Second, "Enter in the xterm", func() bool {
		b, _ := os.ReadFile(typed)
		return string(b) == "hello from dvv\r" || string(b) == "hello from dvv\n"
	})
	wantExit(t, d.dvv("key", limb, "ctrl+nosuchkey"), wire.ExitUsage, wire.UnknownKey)

	// Resize: generation 2; a click computed against generation 1 (given,
	// or remembered from the last screen read) is refused, nothing sent.
	x.Resize(t, 1024, 768)
	testbed.Eventually(t, 10*time.Second, "generation 2 after the resize", func() bool {
		o := status(t, d, "shell-a", limb)
		return o.Geometry.Generation == 2 && o.Size == (wire.Size{W: 1024, H: 768})
	})
	if r := d.must("status", limb); !strings.Contains(r.stdout, "1024x768") {
		t.Errorf("status after resize: %v", r)
	}
	wantExit(t, d.dvv("click", limb, "50", "60", "--generation", "1", "--action", "move"), wire.ExitFence, wire.GeometryChanged)
	r = d.dvv("click", limb, "50", "60", "--action", "move", "--json")
	if resp := response(t, r); r.code != wire.ExitFence || resp.Code != wire.GeometryChanged || resp.Observation == nil || resp.Observation.Geometry.Generation != 2 {
		t.Errorf("stale last-read click --json: %v", r)
	}
	if px, py := x.MouseLocation(t); px == 50 && py == 60 {
		t.Error("a refused click moved the pointer")
	}
	d.must("screen", limb, "--out", shot)
	checkPNG(t, shot, 1024, 768)
	d.must("click", limb, "1000", "700", "--action", "move")
	testbed.Eventually(t, 10*time.Second, "the pointer at 1000,700", func() bool {
		px, py := x.MouseLocation(t)
		return px == 1000 && py == 700
	})

	// A person takes over from another shell: this shell's next act is
	// LEASE_REVOKED, and its observation says a person drives.
	r = d.run("shell-person", "", nil, "control", "takeover", limb, "--reason", "my turn")
	if r.code != 0 || !strings.Contains(r.stdout, "human_took_over: true") {
		t.Fatal(r)
	}
	wantExit(t, d.dvv("click", limb, "10", "10", "--action", "move"), wire.ExitLease, wire.LeaseRevoked)
	if o := status(t, d, "shell-a", limb); !o.Lease.HumanTookOver || o.Lease.Held {
		t.Errorf("lease after takeover: %+v", o.Lease)
	}
	r = d.dvv("control", "yield_status", limb)
	if r.code != 0 || !strings.Contains(r.stdout, "took over") {
		t.Errorf("yield_status: %v", r)
	}
	// Agent input is refused, not queued, while the person holds control.
	wantExit(t, d.dvv("control", "acquire", limb), wire.ExitLease, wire.LeaseNotHeld)

	if r := d.must("history", limb); !strings.Contains(r.stdout, "click") || !strings.Contains(r.stdout, string(wire.GeometryChanged)) {
		t.Errorf("history: %v", r)
	}
	d.must("signals", limb)
	if r := d.must("signals", limb, "--json"); response(t, r).Signals[wire.SigWindowStructure].State != wire.SignalAbsent {
		t.Errorf("signals --json: %v", r)
	}
}

func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the screen file: %v", err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != w || cfg.Height != h {
		t.Fatalf("%s: %dx%d (%v), want %dx%d", path, cfg.Width, cfg.Height, err, w, h)
	}
}

// TestVNCScreenGroupsEvents: scaled screens and their imageSpace line,
// stdout images, groups with one image per member, and the event stream.
func TestVNCScreenGroupsEvents(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")

	// Events: started before anything happens, killed by its pid at the end.
	ev := exec.Command(dvvBin, "events")
	ev.Env = append(append([]string{}, d.env...), "DVV_SESSION=events")
	out, err := ev.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := ev.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Process.Kill(); ev.Wait() })
	lines := make(chan string, 256)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	if !eventsSubscribed(errOut, 20*time.Second) {
		t.Fatal("dvv events never subscribed")
	}

	x, limb := openVNC(t, d)
	dir := t.TempDir()
	half := filepath.Join(dir, "half.png")
	r := d.must("screen", limb, "--scale", "0.5", "--out", half)
	checkPNG(t, half, 400, 300)
	if !strings.Contains(r.stdout, "scale 0.5") {
		t.Errorf("the imageSpace line does not state the scale: %v", r)
	}
	r = d.must("screen", limb, "--region", "10,20,100,50", "--out", filepath.Join(dir, "region.png"))
	checkPNG(t, filepath.Join(dir, "region.png"), 100, 50)
	if !strings.Contains(r.stdout, "x=10 y=20 w=100 h=50") {
		t.Errorf("region imageSpace: %v", r)
	}
	r = d.must("screen", limb, "--out", "-")
	if !strings.HasPrefix(r.stdout, "\x89PNG") || !strings.Contains(r.stderr, "imageSpace") {
		t.Errorf("screen --out -: stdout %d bytes, stderr %q", len(r.stdout), r.stderr)
	}
	// A relative --out is made absolute in the caller's directory.
	cmd := exec.Command(dvvBin, "screen", limb, "--jpeg")
	cmd.Dir, cmd.Env = dir, append(append([]string{}, d.env...), "DVV_SESSION=shell-a")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("screen --jpeg: %v\n%s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "dvv-screen.jpg")); err != nil || len(b) < 3 || b[0] != 0xff || b[1] != 0xd8 {
		t.Errorf("./dvv-screen.jpg: %v", err)
	}
	wantExit(t, d.dvv("screen", limb, "--region", "700,500,200,200", "--out", half), wire.ExitFence, wire.OutOfBounds)

	// An observer's token has no local.files: dvv writes the image itself.
	secret := strings.TrimSpace(d.must("token", "create", "--role", "observer").stdout)
	tokShot := filepath.Join(dir, "token.png")
	r = d.run("shell-observer", "", []string{"DVV_TOKEN=" + secret}, "screen", limb, "--scale", "0.5", "--out", tokShot, "--json")
	if resp := response(t, r); r.code != 0 || resp.Screen == nil || resp.Screen.Path != tokShot || resp.Screen.DataBase64 != "" {
		t.Fatalf("screen with an observer token: %v", r)
	}
	checkPNG(t, tokShot, 400, 300)

	// A group of two limbs to the same server (its own limb and a second
	// address form), one image per member.
	r = d.must("group", "open", "--address", x.Addr, "--address", "localhost:"+strconv.Itoa(x.Port), "--protocol", "vnc", "--perceive")
	gid := strings.Fields(r.stdout)[0]
	if !strings.HasPrefix(gid, "grp-") {
		t.Fatalf("group open: %v", r)
	}
	d.must("group", "run", gid, "wait", "--args", `{"until":"connected","timeoutMs":10000}`)
	shots := filepath.Join(dir, "shots")
	r = d.must("group", "run", gid, "screen", "--out-dir", shots, "--args", `{"scale":0.25}`)
	imgs, _ := filepath.Glob(filepath.Join(shots, "*.png"))
	if len(imgs) != 2 {
		t.Fatalf("group run screen wrote %v: %v", imgs, r)
	}
	for _, img := range imgs {
		checkPNG(t, img, 200, 150)
	}
	// The same with an observer's token (no local.files): dvv writes them.
	tokShots := filepath.Join(dir, "tok-shots")
	r = d.run("shell-observer", "", []string{"DVV_TOKEN=" + secret}, "group", "run", gid, "screen", "--out-dir", tokShots, "--args", `{"scale":0.25}`)
	if imgs, _ := filepath.Glob(filepath.Join(tokShots, "*.png")); r.code != 0 || len(imgs) != 2 {
		t.Fatalf("group run screen with a token wrote %v: %v", imgs, r)
	}
	if r := d.must("status", gid+"/1"); !strings.Contains(r.stdout, "connected") {
		t.Errorf("status GROUP/MEMBER: %v", r)
	}
	resp := response(t, d.must("group", "ls", gid, "--json"))
	if resp.Group == nil || resp.Group.Size != 2 {
		t.Errorf("group ls --json: %+v", resp)
	}
	// A failing member sets the exit status (type needs the lease).
	wantExit(t, d.dvv("group", "run", gid, "type", "--args", `{"text":"x"}`), wire.ExitLease, "")
	wantExit(t, d.dvv("group", "shrink", gid, "3"), wire.ExitUsage, wire.BadRequest)
	r = d.must("group", "grow", gid, "--address", "127.0.0.1:"+strconv.Itoa(x.Port), "--protocol", "vnc")
	if !strings.Contains(r.stdout, "(3 members)") {
		t.Errorf("group grow: %v", r)
	}
	d.must("group", "shrink", gid, "2")
	d.must("group", "close", gid)

	// The event stream carried this limb's ops, one JSON object a line.
	deadline := time.After(10 * time.Second)
	for seen := false; !seen; {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("dvv events ended early")
			}
			var e wire.Event
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("event line %q: %v", line, err)
			}
			seen = e.LimbID == limb && e.Kind == "op.start"
		case <-deadline:
			t.Fatal("no op.start event for the limb")
		}
	}
}
