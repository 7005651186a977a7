package rfb

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"net"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

// connect dials addr and runs the client until the test ends.
func connect(t *testing.T, addr string, cfg *Config) (*Client, chan error) {
	t.Helper()
	if cfg.Framebuffer == nil {
		cfg.Framebuffer = fb.New()
	}
	c, err := Dial(context.Background(), addr, cfg)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run() }()
	t.Cleanup(func() { c.Close(); <-done })
	return c, done
}

// diffPixels counts pixels that differ between the mirror and the X
// server's own capture.
// A box around the pointer is left out: the X server keeps its software
// cursor in the framebuffer but leaves it out of GetImage.
func diffPixels(buf *fb.Buffer, truth *image.RGBA, pointer image.Point) (int, string) {
	skip := image.Rectangle{pointer.Sub(image.Pt(24, 24)), pointer.Add(image.Pt(24, 24))}
	img, _ := buf.Snapshot(image.Rect(0, 0, 1<<15, 1<<15))
	if img.Bounds().Size() != truth.Bounds().Size() {
		return -1, fmt.Sprintf("size %v vs %v", img.Bounds().Size(), truth.Bounds().Size())
	}
	n := 0
	first := ""
	for i := 0; i < len(img.Pix); i += 4 {
		if image.Pt(i/4%img.Rect.Dx(), i/4/img.Rect.Dx()).In(skip) {
			continue
		}
		if img.Pix[i] != truth.Pix[i] || img.Pix[i+1] != truth.Pix[i+1] || img.Pix[i+2] != truth.Pix[i+2] || img.Pix[i+3] != 0xff {
			if n == 0 {
				p := i / 4
				first = fmt.Sprintf("first at (%d,%d): got %v want %v", p%img.Rect.Dx(), p/img.Rect.Dx(), img.Pix[i:i+4], truth.Pix[i:i+4])
			}
			n++
		}
	}
	return n, first
}

func waitMatch(t *testing.T, d *testbed.Display, buf *fb.Buffer) {
	t.Helper()
	var last string
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		x, y := d.MouseLocation(t)
		truth := d.Capture(t)
		n, first := diffPixels(buf, truth, image.Pt(x, y))
		if n == 0 {
			return
		}
		last = fmt.Sprintf("%d pixels differ; %s", n, first)
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("framebuffer never matched the X server: %s", last)
}

func TestXvncEncodingsMatchCapture(t *testing.T) {
	testbed.Need(t, "Xvnc", "xterm", "xsetroot")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 400})
	v.Run(t, "xsetroot", "-solid", "#336699")
	v.Background(t, "xterm", "-geometry", "60x15+10+10", "-e", "sh", "-c", "ls -la /usr/bin | head -50; sleep 60")
	v.WaitStill(t, "xterm")
	for _, enc := range []int32{EncRaw, EncCopyRect, EncRRE, EncHextile, EncZlib, EncTight, EncZRLE} {
		t.Run(EncodingName(enc), func(t *testing.T) {
			encs := []int32{enc}
			if enc == EncCopyRect {
				encs = []int32{EncCopyRect, EncRaw}
			}
			cfg := &Config{Encodings: encs, Shared: true}
			c, _ := connect(t, v.Addr, cfg)
			waitMatch(t, v.Display, c.Framebuffer())
			t.Logf("caps %+v", c.Capabilities())
		})
	}
}

func TestXvncVNCAuth(t *testing.T) {
	t.Parallel()
	v := testbed.StartXvnc(t, testbed.XvncOptions{Password: "secret12"})
	c, _ := connect(t, v.Addr, &Config{Password: "secret12", Shared: true})
	if got := c.Capabilities().Security; got != "VncAuth" {
		t.Errorf("security %q", got)
	}
	_, err := Dial(context.Background(), v.Addr, &Config{Password: "wrong", HandshakeTimeout: 5 * time.Second})
	var ae *AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("wrong password: %v (%T), want *AuthError", err, err)
	}
	t.Logf("server said: %v", ae)
	_, err = Dial(context.Background(), v.Addr, &Config{})
	if !errors.As(err, &ae) {
		t.Fatalf("no password: %v, want *AuthError", err)
	}
}

func TestX11vncMatchesCapture(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "x11vnc", "xterm", "xsetroot")
	v := testbed.StartX11vnc(t, 640, 400)
	v.Run(t, "xsetroot", "-solid", "#993366")
	v.Background(t, "xterm", "-geometry", "50x10+30+40", "-e", "sh", "-c", "echo hello from x11vnc; sleep 60")
	c, _ := connect(t, v.Addr, &Config{Shared: true})
	waitMatch(t, v.Display, c.Framebuffer())
}

func TestHandshakeFollowsContext(t *testing.T) {
	t.Parallel()
	// The server stalls in the security handshake until the client hangs up.
	s := startFake(t, 8, 8, func(c net.Conn) bool { io.Copy(io.Discard, c); return false }, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := Dial(ctx, s.addr(), &Config{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's deadline", err)
	}
}
