package e2e

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/limb"
	rdplimb "github.com/dvvhq/dvv/pkg/limb/rdp"
	"github.com/dvvhq/dvv/pkg/limb/vnc"
	"github.com/dvvhq/dvv/pkg/wire"
)

// startDaemonDialers runs an in-process dvvd with these desktop dialers.
func startDaemonDialers(t *testing.T, desk map[string]limb.DesktopDialer) *daemon.Daemon {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sock")
	os.Mkdir(dir, 0o700)
	d := daemon.New(daemon.Config{SocketPath: filepath.Join(dir, "e2e.sock"),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Desktop: desk})
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { d.Serve(); close(done) }()
	t.Cleanup(func() { d.Shutdown(); <-done })
	return d
}

// megabyteClip is a clipboard text big enough to fill the socket buffers
// of a server that stopped reading: random, so compression cannot shrink it.
var megabyteClip = func() string {
	b := make([]byte, 3<<18)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}()

// A write that fails part-way leaves the RFB stream out of step. After the
// server comes back, an act is either delivered (the X server's pointer
// moves there) or answers a coded error — never a "sent" that goes nowhere.
func TestVNCFailedWriteDropsTheStream(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	d := startDaemonDialers(t, map[string]limb.DesktopDialer{wire.ProtoVNC: vnc.Options{WriteTimeout: 2 * time.Second}.Dial})
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})

	v.Server.Freeze(t)
	failed := false
	for i := 0; i < 40 && !failed; i++ {
		_, err := do(t, c, wire.ClipboardArgs{Target: wire.Target{LimbID: id}, Action: "set", Text: &megabyteClip})
		failed = err != nil
	}
	if !failed {
		t.Fatal("40 clipboard sets of 1 MiB to a stopped server all answered sent")
	}
	v.Server.Thaw()

	delivered := false
	for i := 0; i < 200 && !delivered; i++ {
		x, y := 100+i, 200
		_, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: &x, Y: &y, Generation: u64p(1)})
		if err != nil {
			if !client.Code(err).Known() || client.Code(err) == wire.Internal {
				t.Fatalf("act after the server came back: %v", err)
			}
			do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(2000)})
			continue
		}
		// It answered sent: the X server must see the pointer there.
		testbed.Eventually(t, 10*time.Second, "the pointer move that answered sent", func() bool {
			gx, gy := v.MouseLocation(t)
			return gx == x && gy == y
		})
		delivered = true
	}
	if !delivered {
		t.Fatal("no act was delivered after the server came back")
	}
}

// A frozen server is reported as stalled: screen and waits refuse to pass
// stale pixels off as fresh, acts are refused rather than blocked, and the
// limb recovers when the server answers again.
func TestVNCStalledServer(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	d := startDaemonDialers(t, map[string]limb.DesktopDialer{wire.ProtoVNC: vnc.Dial})
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	checkStallAndRecovery(t, c, id, v.Server, func() {
		x, y := 300, 100
		must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: &x, Y: &y, Generation: u64p(1)})
		testbed.Eventually(t, 10*time.Second, "pointer moved after recovery", func() bool {
			gx, gy := v.MouseLocation(t)
			return gx == x && gy == y
		})
	})
}

func TestRDPStalledServer(t *testing.T) {
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 320, Height: 240})
	d := startDaemonDialers(t, map[string]limb.DesktopDialer{wire.ProtoRDP: rdplimb.Dial})
	c := dial(t, d, "agent")
	id := openRDP(t, c, srv)
	checkStallAndRecovery(t, c, id, srv.Server, func() {
		x, y := 123, 45
		must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: &x, Y: &y, Generation: u64p(1)})
		testbed.Eventually(t, 10*time.Second, "pointer moved after recovery", func() bool {
			gx, gy := srv.MouseLocation(t)
			return gx == x && gy == y
		})
	})
}

func checkStallAndRecovery(t *testing.T, c *client.Client, id string, server *testbed.Proc, act func()) {
	t.Helper()
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	// A quiet server is not a stalled one: probes keep it answering.
	for quiet := time.Now(); time.Since(quiet) < 8*time.Second; {
		if st := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.State; st != wire.StateConnected {
			t.Fatalf("an idle, live server made the limb %s", st)
		}
		do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-changed", TimeoutMs: intp(500)})
	}
	server.Freeze(t)
	testbed.Eventually(t, 30*time.Second, "the limb reports stalled", func() bool {
		return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.State == wire.StateStalled
	})
	if _, err := do(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}}); client.Code(err) != wire.NotReady {
		t.Fatalf("screen of a stalled limb: %v, want NOT_READY", err)
	}
	w, err := do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: intp(100), TimeoutMs: intp(2000)})
	if err == nil && w.Wait.Settled {
		t.Fatalf("wait screen-stable settled on a stalled limb: %+v", w.Wait)
	}
	x, y := 5, 5
	if _, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: &x, Y: &y, Generation: u64p(1)}); client.Code(err) != wire.NotReady {
		t.Fatalf("act on a stalled limb: %v, want NOT_READY", err)
	}
	server.Thaw()
	w = must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(30000)})
	if !w.Wait.Settled {
		t.Fatalf("the limb did not recover: %+v", w.Observation)
	}
	must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}})
	act()
}

// close (and so SIGTERM, which closes every limb) does not wait out a write
// blocked on a server that reads nothing: here the write would block for
// ten minutes.
func TestCloseDoesNotWaitOutABlockedWrite(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	d := startDaemonDialers(t, map[string]limb.DesktopDialer{wire.ProtoVNC: vnc.Options{WriteTimeout: 10 * time.Minute}.Dial})
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	v.Server.Freeze(t)
	// Fill the socket buffers until a set blocks (it answers nothing).
	blocked := make(chan error, 1)
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			_, err := c.Clipboard(ctx, wire.ClipboardArgs{Target: wire.Target{LimbID: id}, Action: "set", Text: &megabyteClip})
			cancel()
			if err != nil {
				blocked <- err
				return
			}
		}
	}()
	c2 := dial(t, d, "closer")
	testbed.Eventually(t, 30*time.Second, "a clipboard set blocked or refused", func() bool {
		st := must(t, c2, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.State
		return st == wire.StateStalled
	})
	must(t, c2, wire.CloseArgs{LimbID: id})
	if err := <-blocked; client.Code(err) == "" {
		t.Fatalf("the blocked set: %v", err)
	}
}

// openRDP trusts the server's certificate and opens it with perceive.
func openRDP(t *testing.T, c *client.Client, srv *testbed.RDP) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the pin file
	if _, _, err := rdplimb.TrustCertChecked(t.Context(), "127.0.0.1", srv.Port, "", true); err != nil {
		t.Fatal(err)
	}
	r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &srv.Port, Protocol: "rdp", Perceive: boolp(true)})
	w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(30000)})
	if !w.Wait.Settled {
		t.Fatalf("not connected: %+v", w.Observation)
	}
	return r.LimbID
}
