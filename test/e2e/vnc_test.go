package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// printable is every printable ASCII character, some Latin-1, a newline and
// a tab: what a user types into a terminal.
const printable = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\tend\n"

func TestVNCDesktopAgainstServerGroundTruth(t *testing.T) {
	for _, server := range []string{"Xvnc", "x11vnc"} {
		t.Run(server, func(t *testing.T) {
			t.Parallel()
			var v *testbed.VNC
			if server == "Xvnc" {
				v = testbed.StartXvnc(t, testbed.XvncOptions{Width: 800, Height: 600})
			} else {
				v = testbed.StartX11vnc(t, 800, 600)
			}
			d := startDaemon(t)
			c := dial(t, d, "agent")
			v.Run(t, "xsetroot", "-solid", "#336699")
			id := openVNC(t, c, "127.0.0.1", v.Port)

			// Pixels: the mirror equals the X server's own capture.
			var diff int
			for i := 0; i < 40; i++ {
				must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: intp(300), TimeoutMs: intp(5000)})
				s := must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}})
				if s.Screen.Coverage != 1 || s.Screen.Generation != 1 {
					t.Fatalf("screen meta %+v", s.Screen)
				}
				if diff = diffPixels(decodeScreen(t, s.Screen), v.Capture(t), 0); diff == 0 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if diff != 0 {
				t.Fatalf("framebuffer differs from the X server's capture in %d pixels", diff)
			}

			// Pointer: a click lands where the X server says the pointer is.
			must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
			_, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(10), Y: intp(10)})
			if client.Code(err) != wire.Unfenced {
				t.Fatalf("click without generation: %v", err)
			}
			must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(123), Y: intp(321), Generation: u64p(1)})
			testbed.Eventually(t, 5*time.Second, "pointer at 123,321", func() bool {
				x, y := v.MouseLocation(t)
				return x == 123 && y == 321
			})

			// Text: what is typed arrives byte for byte in a terminal.
			out := v.CatTerm(t)
			testbed.Eventually(t, 15*time.Second, "the new window arms the typing fence", func() bool {
				f := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Fence
				return f.Armed && f.Damage > f.Threshold
			})
			_, err = do(t, c, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: strp("x")})
			if client.Code(err) != wire.ScreenChanged {
				t.Fatalf("type after a new window without reading: %v", err)
			}
			// Read, then type; a window still painting may trip the fence
			// again, and the answer is to read again (nothing was typed).
			text := printable + "café ß © Ñ Ä\n"
			testbed.Eventually(t, 15*time.Second, "typed after reading the screen", func() bool {
				must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.5)})
				_, err := do(t, c, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: &text})
				if err != nil && client.Code(err) != wire.ScreenChanged {
					t.Fatalf("type after reading the screen: %v", err)
				}
				return err == nil
			})
			testbed.Eventually(t, 10*time.Second, "typed text in the file", func() bool {
				b, _ := os.ReadFile(out)
				return len(b) >= len("café ß © Ñ Ä\n")+len(printable) && strings.HasSuffix(string(b), "\n")
			})
			b, _ := os.ReadFile(out)
			if string(b) != text {
				t.Fatalf("typed text differs:\n got %q\nwant %q", b, text)
			}
		})
	}
}

func f64p(f float64) *float64 { return &f }

func TestVNCResizeRaisesGeneration(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 800, Height: 600})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	v.Resize(t, 1024, 768)
	testbed.Eventually(t, 10*time.Second, "generation 2", func() bool {
		o := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation
		return o.Geometry.Generation == 2 && o.Size == wire.Size{W: 1024, H: 768}
	})
	_, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(900), Y: intp(700), Generation: u64p(1)})
	if client.Code(err) != wire.GeometryChanged {
		t.Fatalf("stale generation: %v", err)
	}
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(900), Y: intp(700), Generation: u64p(2)})
	testbed.Eventually(t, 5*time.Second, "pointer at 900,700", func() bool {
		x, y := v.MouseLocation(t)
		return x == 900 && y == 700
	})
}

func TestVNCServerRestartKeepsLimbID(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	v.Server.Kill()
	testbed.Eventually(t, 10*time.Second, "limb notices the drop", func() bool {
		return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.State != "connected"
	})
	v2 := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480, Port: v.Port})
	_ = v2
	w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(25000)})
	if !w.Wait.Settled || w.Observation.LimbID != id || w.Observation.Reconnects < 1 {
		t.Fatalf("limb did not come back under its id: %+v", w.Observation)
	}
}

func TestVNCWrongPasswordFailsFast(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Password: "secret12"})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	start := time.Now()
	r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &v.Port, Protocol: "vnc"})
	_, err := do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	// wait answers NOT_CONNECTED (its code in the tool reference) with the
	// refused password as the cause.
	if client.Code(err) != wire.NotConnected || cause(err) != wire.AuthFailed {
		t.Fatalf("wrong (missing) password: %v", err)
	}
	if time.Since(start) > 15*time.Second {
		t.Fatalf("AUTH_FAILED took %v", time.Since(start)) // a hang, not a timing assertion
	}
}
