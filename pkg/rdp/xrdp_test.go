package rdp

import (
	"fmt"
	"image"
	"os"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestXrdp drives one xrdp session (TLS, auto-logon through the Client Info
// PDU, Xvnc back end): pixels, pointer and Unicode typing.
func TestXrdp(t *testing.T) {
	srv := testbed.StartXrdp(t, testbed.XrdpOptions{})
	c, buf := dialTest(t, srv, func(cfg *Config) { cfg.Width, cfg.Height = 800, 600 })
	if c.protocol != ProtocolSSL {
		t.Fatalf("selected protocol %d, want TLS", c.protocol)
	}
	srv.WaitDisplay(t)
	w, h := buf.Size()
	if w != 800 || h != 600 {
		t.Fatalf("framebuffer %dx%d, want 800x600", w, h)
	}
	srv.Run(t, "xsetroot", "-solid", "#c06020")
	waitMatch(t, srv, buf, 0)

	file := srv.CatTerm(t)
	for _, p := range []image.Point{{300, 200}, {10, 20}, {555, 444}} {
		if err := c.Pointer(p.X, p.Y, 0, 0); err != nil {
			t.Fatal(err)
		}
		testbed.Eventually(t, 5*time.Second, fmt.Sprintf("pointer at %v", p), func() bool {
			x, y := srv.MouseLocation(t)
			return x == p.X && y == p.Y
		})
	}
	c.Pointer(100, 100, 0, 0)
	if !c.UnicodeInput() {
		t.Fatal("xrdp advertises Unicode input; the capability was not seen")
	}
	text := "Hello_World-42 (a>b)"
	for _, r := range text {
		if err := c.TypeUnicode(r); err != nil {
			t.Fatal(err)
		}
	}
	testbed.Eventually(t, 10*time.Second, "typed text in the xterm", func() bool {
		b, _ := os.ReadFile(file)
		return string(b) == text
	})
	// xrdp forwards the X cursor (the xterm's text cursor is under the
	// pointer now) as pointer updates.
	testbed.Eventually(t, 10*time.Second, "a pointer shape", func() bool {
		cur, _ := c.Cursor()
		return cur != nil && (cur.Image != nil || cur.System != "")
	})
	if cur, _ := c.Cursor(); cur.Image != nil {
		if r := cur.Image.Rect; r.Dx() == 0 || r.Dx() > 96 || cur.HotX >= r.Dx() {
			t.Errorf("pointer %v hot spot %d,%d", r, cur.HotX, cur.HotY)
		}
	}
}
