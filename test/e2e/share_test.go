package e2e

import (
	"context"
	"image"
	"image/draw"
	"image/jpeg"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/fb"
	rdplimb "github.com/dvvhq/dvv/pkg/limb/rdp"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// openRDPShadow opens FreeRDP's shadow server as a limb, trusting its
// certificate the way a user would, and waits for a first full frame.
func openRDPShadow(t *testing.T, w, h int) (*testbed.RDP, *client.Client, string) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: w, Height: h})
	trust := func(proto, addr string, port int, fp string, acceptNew bool) (string, bool, error) {
		return rdplimb.TrustCertChecked(t.Context(), addr, port, fp, acceptNew)
	}
	d := startDaemonWith(t, daemon.Services{Trust: trust}, io.Discard)
	c := dial(t, d, "agent")
	must(t, c, wire.HostTrustArgs{Address: "127.0.0.1", Port: &srv.Port, Protocol: "rdp", AcceptNew: true})
	r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &srv.Port, Protocol: "rdp", Perceive: boolp(true)})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(30000)})
	return srv, c, r.LimbID
}

// mirror is the limb's framebuffer as dvvd holds it.
func mirror(t *testing.T, c *client.Client, id string) *image.RGBA {
	return decodeScreen(t, must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}}).Screen)
}

// viewerOn connects our RFB client to a share's Unix socket.
func viewerOn(t *testing.T, path string) *rfb.Client {
	t.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := rfb.NewClient(context.Background(), conn, &rfb.Config{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	go v.Run()
	t.Cleanup(func() { v.Close() })
	return v
}

func snapshotOf(buf *fb.Buffer) *image.RGBA {
	w, h := buf.Size()
	img, _ := buf.Snapshot(image.Rect(0, 0, w, h))
	return img
}

// TestShareOfRDPLimb: vncsnapshot (an RFB 3.3 viewer) and our client read
// an RDP limb's pixels through the share, with no second RDP connection.
func TestShareOfRDPLimb(t *testing.T) {
	testbed.Need(t, "vncsnapshot", "vncpasswd")
	srv, c, id := openRDPShadow(t, 640, 480)
	srv.Run(t, "xsetroot", "-solid", "#c06020")
	srv.Background(t, "xterm", "-geometry", "40x10+20+20", "-e", "sh", "-c", "echo shared-pixels; sleep 600")
	testbed.Eventually(t, 20*time.Second, "the mirror matches the X server", func() bool {
		return diffPixels(mirror(t, c, id), srv.Capture(t), 8) == 0
	})

	sh := must(t, c, wire.ShareArgs{Target: wire.Target{LimbID: id}}).Share
	v := viewerOn(t, sh.ViewSocket)
	testbed.Eventually(t, 10*time.Second, "the viewer's pixels equal the mirror", func() bool {
		return diffPixels(snapshotOf(v.Framebuffer()), mirror(t, c, id), 0) == 0
	})

	tcp := must(t, c, wire.ShareArgs{Target: wire.Target{LimbID: id}, TCP: true, ViewOnly: true}).Share
	if tcp.Password == "" || !strings.HasPrefix(tcp.TCP, "127.0.0.1:") {
		t.Fatalf("tcp share %+v", tcp)
	}
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "passwd")
	pw := exec.Command("vncpasswd", "-f")
	pw.Stdin = strings.NewReader(tcp.Password + "\n")
	out, err := pw.Output()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(pwFile, out, 0o600)
	port := tcp.TCP[strings.LastIndex(tcp.TCP, ":")+1:]
	snap := func(name string) error {
		cmd := exec.Command("timeout", "20", "vncsnapshot", "-quiet", "-allowblank", "-nocursor", "-passwd", pwFile,
			"-quality", "100", "127.0.0.1::"+port, filepath.Join(dir, name))
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("vncsnapshot: %v: %s", err, b)
		}
		return err
	}
	if err := snap("a.jpg"); err != nil {
		t.Fatal("vncsnapshot with the one-time password failed")
	}
	f, _ := os.Open(filepath.Join(dir, "a.jpg"))
	defer f.Close()
	img, err := jpeg.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	got := image.NewRGBA(img.Bounds())
	draw.Draw(got, got.Bounds(), img, image.Point{}, draw.Src)
	want := mirror(t, c, id)
	// JPEG is lossy: the picture must agree within JPEG's error almost
	// everywhere (text edges ring a little).
	if bad := diffPixels(got, want, 40); got.Bounds() != want.Bounds() || bad > len(want.Pix)/4/100 {
		t.Fatalf("vncsnapshot's picture differs from the limb's in %d pixels (bounds %v vs %v)", bad, got.Bounds(), want.Bounds())
	}
	if snap("b.jpg") == nil {
		t.Fatal("a one-time password worked twice")
	}
}

// TestShareInputTakesOver: input from a shared viewer takes the limb over
// (the agent's next act answers LEASE_REVOKED with human_took_over) and
// lands on the X server; leaving hands it back; view-only refuses input.
func TestShareInputTakesOver(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	sh := must(t, c, wire.ShareArgs{Target: wire.Target{LimbID: id}}).Share
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire", Reason: "testing"})
	gen := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Geometry.Generation

	// View-only: the pointer does not move, the agent keeps its lease.
	ro := viewerOn(t, sh.ViewSocket)
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(50), Y: intp(60), Generation: &gen})
	testbed.Eventually(t, 5*time.Second, "pointer at 50,60", func() bool { x, y := v.MouseLocation(t); return x == 50 && y == 60 })
	ro.PointerEvent(0, 400, 300)
	ro.KeyEvent(0x61, true)
	ro.KeyEvent(0x61, false)
	ro.RequestUpdate(false, 0, 0, 640, 480)
	waitUpdates(t, ro, 2)
	if x, y := v.MouseLocation(t); x != 50 || y != 60 {
		t.Fatalf("a view-only viewer moved the pointer to %d,%d", x, y)
	}
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(51), Y: intp(61), Generation: &gen})

	// Interactive: the viewer's move lands and the agent is revoked.
	rw := viewerOn(t, sh.Socket)
	rw.PointerEvent(0, 300, 200)
	testbed.Eventually(t, 5*time.Second, "pointer at 300,200", func() bool { x, y := v.MouseLocation(t); return x == 300 && y == 200 })
	_, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(10), Y: intp(10), Generation: &gen})
	var we *wire.Error
	if client.Code(err) != wire.LeaseRevoked {
		t.Fatalf("agent's act after the viewer's input: %v, want LEASE_REVOKED", err)
	}
	if !asWire(err, &we) || we.Observation == nil || !we.Observation.Lease.HumanTookOver {
		t.Fatalf("LEASE_REVOKED without human_took_over: %+v", err)
	}
	if _, err := do(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"}); client.Code(err) != wire.LeaseNotHeld {
		t.Fatalf("acquire while a person drives: %v", err)
	}
	// Leaving the viewer hands the limb back.
	rw.Close()
	testbed.Eventually(t, 5*time.Second, "lease handed back", func() bool {
		_, err := do(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
		return err == nil
	})
	// CLI hand-back after a viewer took over again.
	rw2 := viewerOn(t, sh.Socket)
	rw2.PointerEvent(0, 100, 100)
	testbed.Eventually(t, 5*time.Second, "taken over again", func() bool {
		return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Lease.HumanTookOver
	})
	person := dial(t, d, "person")
	must(t, person, wire.HandbackArgs{Target: wire.Target{LimbID: id}})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(20), Y: intp(30), Generation: &gen})
	testbed.Eventually(t, 5*time.Second, "agent drives again", func() bool { x, y := v.MouseLocation(t); return x == 20 && y == 30 })
}

// waitUpdates waits until a viewer has received n framebuffer updates.
func waitUpdates(t *testing.T, v *rfb.Client, n uint64) {
	t.Helper()
	testbed.Eventually(t, 10*time.Second, "framebuffer updates", func() bool { return v.Capabilities().Updates >= n })
}

func asWire(err error, we **wire.Error) bool {
	e, ok := err.(*wire.Error)
	if ok {
		*we = e
	}
	return ok
}

// TestPauseRefusesAgentInput: a paused limb answers every agent act
// LEASE_REVOKED with human_took_over until resumed; pause --all covers
// every limb.
func TestPauseRefusesAgentInput(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	person := dial(t, d, "person")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	gen := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Geometry.Generation
	move := func(x int) error {
		_, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(x), Y: intp(5), Generation: &gen})
		return err
	}
	for _, pause := range []wire.PauseArgs{
		{Action: "pause", Target: wire.Target{LimbID: id}},
		{Action: "pause", All: true},
	} {
		must(t, person, pause)
		for i := 0; i < 2; i++ { // every act, not just the first
			if err := move(40 + i); client.Code(err) != wire.LeaseRevoked {
				t.Fatalf("act while paused: %v", err)
			}
		}
		if o := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation; !o.Lease.HumanTookOver {
			t.Fatalf("paused limb's lease %+v", o.Lease)
		}
		if x, _ := v.MouseLocation(t); x == 40 || x == 41 {
			t.Fatal("a paused act reached the server")
		}
		r := must(t, person, wire.PauseArgs{Action: "resume"})
		if r.Paused.All || len(r.Paused.Limbs) != 0 {
			t.Fatalf("after resume: %+v", r.Paused)
		}
		if err := move(77); err != nil {
			t.Fatalf("act after resume: %v", err)
		}
		testbed.Eventually(t, 5*time.Second, "pointer at 77", func() bool { x, _ := v.MouseLocation(t); return x == 77 })
	}
}
