package system_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestKeyNamesVncdotoolSpelling: `dvv key L ctrl-c` (vncdotool's spelling)
// reaches the X application as Control+c; a misspelt name is refused with
// UNKNOWN_KEY, nothing pressed, and a hint naming the nearest chord.
func TestKeyNamesVncdotoolSpelling(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	w := x.WatchKeys(t)
	d.must("control", "acquire", limb)
	shot := filepath.Join(t.TempDir(), "s.png")
	// The xev window is a repaint: read the screen until the fence lets a key through.
	testbed.Eventually(t, 15*time.Second, "a key past the fence", func() bool {
		d.dvv("wait", limb, "--until", "screen-stable", "--quiet-ms", "300", "--timeout-ms", "3000")
		d.must("screen", limb, "--out", shot)
		r := d.dvv("key", limb, "ctrl-c")
		if r.code == wire.ExitFence {
			return false
		}
		if r.code != 0 {
			t.Fatal(r)
		}
		return true
	})
	testbed.Eventually(t, 10*time.Second, "Control+c at the application", func() bool {
		for _, p := range w.Presses() {
			if p.Name == "c" && p.State&testbed.ControlMask != 0 {
				return true
			}
		}
		return false
	})

	before := len(w.Presses())
	r := d.dvv("key", limb, "ctl+c")
	wantExit(t, r, wire.ExitUsage, wire.UnknownKey)
	if !strings.Contains(r.stderr, `next: send "ctrl+c" instead`) {
		t.Errorf("no suggestion of ctrl+c: %v", r)
	}
	// Nothing of the refused chord was pressed: the next key is the first new one.
	d.must("key", limb, "z")
	testbed.Eventually(t, 10*time.Second, "z delivered", func() bool { return len(w.Presses()) > before })
	if p := w.Presses()[before]; p.Name != "z" {
		t.Fatalf("the refused chord reached the application: %+v", w.Presses()[before:])
	}
}
