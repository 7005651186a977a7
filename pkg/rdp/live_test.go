package rdp

import (
	"context"
	"image"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

func dialTest(t *testing.T, srv *testbed.RDP, mod func(*Config)) (*Client, *fb.Buffer) {
	t.Helper()
	buf := fb.New()
	cfg := Config{Addr: srv.Addr, User: srv.User, Password: srv.Password, Framebuffer: buf}
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, cfg)
	if err != nil {
		t.Fatalf("Dial %s: %v", srv.Addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c, buf
}

func TestShadowConnect(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600})
	c, buf := dialTest(t, srv, nil)
	w, h := buf.Size()
	if w != 800 || h != 600 {
		t.Fatalf("framebuffer %dx%d, want the server's 800x600", w, h)
	}
	srv.Run(t, "xsetroot", "-solid", "#ff0000")
	testbed.Eventually(t, 15*time.Second, "full coverage", func() bool { return buf.Coverage() >= 1 })
	img, _ := buf.Snapshot(image.Rect(0, 0, w, h))
	_ = img
	_ = c
}
