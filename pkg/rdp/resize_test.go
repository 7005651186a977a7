package rdp

import (
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestShadowResize: the X screen shrinks under the shadow server, which
// reactivates the session with its new size; the framebuffer follows and
// counts one more resize (the daemon's geometry generation).
func TestShadowResize(t *testing.T) {
	t.Parallel()
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	srv := testbed.StartShadowOn(t, x.Display, testbed.ShadowOptions{})
	c, buf := dialTest(t, srv, nil)
	// Let the server finish activating (first full frame) before resizing:
	// the shadow server drops a size change that races the activation.
	srv.Run(t, "xsetroot", "-solid", "#203040")
	testbed.Eventually(t, 15*time.Second, "first full frame", func() bool { return buf.Coverage() >= 1 })
	before := buf.Resizes()
	srv.Run(t, "xrandr", "-s", "800x600")
	// The shadow server looks at the screen size when it captures damage:
	// keep painting until it notices.
	colours := []string{"#405060", "#506070"}
	n := 0
	testbed.Eventually(t, 15*time.Second, "framebuffer at 800x600", func() bool {
		n++
		srv.Run(t, "xsetroot", "-solid", colours[n%2])
		w, h := buf.Size()
		return w == 800 && h == 600
	})
	if buf.Resizes() != before+1 {
		t.Fatalf("resizes %d → %d, want one more", before, buf.Resizes())
	}
	t.Logf("activations: %d", c.Activations())
	srv.Run(t, "xsetroot", "-solid", "#405060")
	waitMatch(t, srv, buf, 0)
}
