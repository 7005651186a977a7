// Package e2e drives an in-process dvvd with the typed client against real
// servers and checks every effect from the server's side.
package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/draw"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/limb"
	rdplimb "github.com/dvvhq/dvv/pkg/limb/rdp"
	sshlimb "github.com/dvvhq/dvv/pkg/limb/ssh"
	"github.com/dvvhq/dvv/pkg/limb/vnc"
	"github.com/dvvhq/dvv/pkg/wire"
)

func startDaemon(t *testing.T) *daemon.Daemon {
	return startDaemonWith(t, daemon.Services{}, io.Discard)
}

// startDaemonWith runs an in-process dvvd with services and its log going
// to logw.
func startDaemonWith(t *testing.T, svc daemon.Services, logw io.Writer) *daemon.Daemon {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sock")
	os.Mkdir(dir, 0o700)
	d := daemon.New(daemon.Config{SocketPath: filepath.Join(dir, "e2e.sock"),
		Logger:   slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Desktop:  map[string]limb.DesktopDialer{wire.ProtoVNC: vnc.Dial, wire.ProtoRDP: rdplimb.Dial},
		Terminal: sshlimb.DialTerminal, TerminalPort: sshlimb.Port, Files: sshlimb.DialFiles,
		Structure: sshlimb.DialStructure, Services: svc})
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { d.Serve(); close(done) }()
	t.Cleanup(func() { d.Shutdown(); <-done })
	return d
}

func dial(t *testing.T, d *daemon.Daemon, name string) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), d.SocketPath(), client.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// do sends one op's typed arguments (client.Call encodes the op's Args:
// the socket line itself).
func do(t *testing.T, c *client.Client, a wire.Args) (*wiretest.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return client.Call[wiretest.Response](ctx, c, a)
}

// doAfterRead reads the screen and sends a, reading again and resending
// while the answer is SCREEN_CHANGED (a window still painting trips the
// typing fence again), for up to 15 s, as an agent told so would; it
// returns the last answer.
func doAfterRead(t *testing.T, c *client.Client, id string, a wire.Args) (*wiretest.Response, error) {
	t.Helper()
	read := wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.25)}
	must(t, c, read)
	deadline := time.Now().Add(15 * time.Second)
	r, err := do(t, c, a)
	for client.Code(err) == wire.ScreenChanged && time.Now().Before(deadline) {
		must(t, c, read)
		r, err = do(t, c, a)
	}
	return r, err
}

// mustAfterRead is doAfterRead that fails the test on an error.
func mustAfterRead(t *testing.T, c *client.Client, id string, a wire.Args) *wiretest.Response {
	t.Helper()
	r, err := doAfterRead(t, c, id, a)
	if err != nil {
		t.Fatalf("%s: %v", a.Op(), err)
	}
	return r
}

func must(t *testing.T, c *client.Client, a wire.Args) *wiretest.Response {
	t.Helper()
	r, err := do(t, c, a)
	if err != nil {
		t.Fatalf("%s: %v", a.Op(), err)
	}
	return r
}

func intp(i int) *int       { return &i }
func strp(s string) *string { return &s }
func boolp(b bool) *bool    { return &b }
func u64p(u uint64) *uint64 { return &u }

// openVNC opens a perceiving limb and waits until it is connected with a
// complete first frame.
func openVNC(t *testing.T, c *client.Client, addr string, port int) string {
	t.Helper()
	r := must(t, c, wire.OpenArgs{Address: addr, Port: &port, Protocol: "vnc", Perceive: boolp(true)})
	w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	if !w.Wait.Settled {
		t.Fatalf("not connected: %+v", w.Observation)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		o := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation
		if o.Coverage >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("first frame never complete: coverage %v", o.Coverage)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return r.LimbID
}

func decodeScreen(t *testing.T, s *wire.Screen) *image.RGBA {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s.DataBase64)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, image.Point{}, draw.Src)
	return rgba
}

// diffPixels counts pixels whose colour differs by more than tol in any channel.
func diffPixels(a, b *image.RGBA, tol int) int {
	if a.Bounds() != b.Bounds() {
		return -1
	}
	n := 0
	for i := 0; i+3 < len(a.Pix); i += 4 {
		for c := 0; c < 3; c++ {
			d := int(a.Pix[i+c]) - int(b.Pix[i+c])
			if d > tol || d < -tol {
				n++
				break
			}
		}
	}
	return n
}

// cause is the code under err's code when dvvd mapped one failure onto
// another (NOT_CONNECTED caused by AUTH_FAILED), else err's code.
func cause(err error) wire.Code {
	var e *wire.Error
	if errors.As(err, &e) && e.Cause != "" {
		return e.Cause
	}
	return client.Code(err)
}

// member is a group_run member's answer line, read whole.
func memberAnswer(t *testing.T, m wire.MemberResult) *wiretest.Response {
	t.Helper()
	var r wiretest.Response
	if err := json.Unmarshal(m.Response, &r); err != nil {
		t.Fatalf("member %d: %v (%s)", m.Index, err, m.Response)
	}
	return &r
}
