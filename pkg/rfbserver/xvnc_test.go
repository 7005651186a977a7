package rfbserver

import (
	"context"
	"image"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// TestRealXvncThroughServer: a real Xvnc mirrored by our RFB client and
// served again by this server to a viewer asking for Tight (lossless):
// the viewer's picture is the mirror's exactly and as close to the X
// server's own capture, and an xrandr resize reaches it on the same
// connection (ExtendedDesktopSize).
func TestRealXvncThroughServer(t *testing.T) {
	testbed.Need(t, "Xvnc", "xterm", "xrandr", "import")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	v.Run(t, "xsetroot", "-solid", "#203040")
	v.Background(t, "xterm", "-geometry", "100x30+20+20", "-e", "sh", "-c", "ls -l /usr/bin | head -200; sleep 600")
	mirror, err := rfb.Dial(context.Background(), v.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	go mirror.Run()
	t.Cleanup(func() { mirror.Close() })
	viewer := dial(t, serve(t, Config{Buffer: mirror.Framebuffer()}), &rfb.Config{Encodings: []int32{rfb.EncTight}})

	matchCapture := func(what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			want := v.Capture(t)
			b := want.Bounds()
			got, _ := viewer.Framebuffer().Snapshot(b)
			m, _ := mirror.Framebuffer().Snapshot(b)
			// The viewer must hold exactly the mirror, and be as close to
			// the X server's capture as the mirror is (the xterm's text
			// cursor is drawn differently in the two).
			if w, h := viewer.Framebuffer().Size(); w == b.Dx() && h == b.Dy() && sameRGB(m.Pix, got.Pix) && diffCount(want.Pix, got.Pix) < 100 {
				return
			}
			if time.Now().After(deadline) {
				w, h := viewer.Framebuffer().Size()
				t.Logf("differing pixels: viewer %d, mirror %d", diffCount(want.Pix, got.Pix), diffCount(want.Pix, m.Pix))
				t.Fatalf("%s: the viewer's %dx%d picture never matched the X server's %v capture", what, w, h, b)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	matchCapture("first frame")
	if viewer.Encodings()["Tight"] == 0 {
		t.Fatalf("no Tight rectangle: %v", viewer.Encodings())
	}

	v.Run(t, "xrandr", "-s", "800x600")
	matchCapture("after xrandr -s 800x600")
	if !viewer.Capabilities().ExtendedDesktopSize {
		t.Fatal("the resize did not come as ExtendedDesktopSize")
	}
}

// sameCursor compares two pointer images where they are opaque, and the
// mask everywhere.
func sameCursor(a, b *image.RGBA) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for i := 0; i < len(a.Pix); i += 4 {
		if (a.Pix[i+3] >= 128) != (b.Pix[i+3] >= 128) {
			return false
		}
		if a.Pix[i+3] >= 128 && (a.Pix[i] != b.Pix[i] || a.Pix[i+1] != b.Pix[i+1] || a.Pix[i+2] != b.Pix[i+2]) {
			return false
		}
	}
	return true
}

func sameRGB(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i += 4 {
		if a[i] != b[i] || a[i+1] != b[i+1] || a[i+2] != b[i+2] {
			return false
		}
	}
	return true
}

func diffCount(a, b []byte) int {
	n := 0
	for i := 0; i+3 < len(a) && i+3 < len(b); i += 4 {
		if a[i] != b[i] || a[i+1] != b[i+1] || a[i+2] != b[i+2] {
			n++
		}
	}
	return n
}
