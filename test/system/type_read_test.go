package system_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTypeReadPassesTheFence: `dvv key Return` scrolls a real xterm full
// of text, so a plain `dvv type` is refused by the typing fence and types
// nothing; `dvv type --read` reads the screen first (a screen read in
// history) and the text reaches the xterm.
func TestTypeReadPassesTheFence(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool")
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)

	// An xterm over nearly the whole screen, full of lines that differ
	// from their neighbours: one line of scrolling repaints all of it.
	// cat writes what it gets to a file at once (-icanon); echo stays on,
	// so Return scrolls.
	out := filepath.Join(t.TempDir(), "typed")
	ready := out + ".ready"
	fill := `i=0; while [ $i -lt 100 ]; do if [ $((i % 2)) -eq 0 ]; then printf '%0128d\n' 0; else printf '%128s\n' '' | tr ' ' '#'; fi; i=$((i+1)); done`
	x.Background(t, "xterm", "-geometry", "130x44+0+0", "-e", "sh", "-c",
		fmt.Sprintf("stty -icanon; %s; touch %s; exec cat > %s", fill, ready, out))
	testbed.WaitFile(t, ready, 15*time.Second)
	testbed.Eventually(t, 10*time.Second, "the xterm focused", func() bool {
		o, err := x.Command("xdotool", "search", "--class", "xterm").Output()
		return err == nil && len(strings.Fields(string(o))) > 0 &&
			x.Command("xdotool", "windowfocus", "--sync", strings.Fields(string(o))[0]).Run() == nil
	})

	d.must("control", "acquire", limb)
	d.must("wait", limb, "--until", "screen-stable", "--quiet-ms", "300", "--timeout-ms", "5000")
	d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "before.png"))
	d.must("key", limb, "Return")
	testbed.Eventually(t, 10*time.Second, "Return in the xterm", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == "\n"
	})
	d.must("wait", limb, "--until", "screen-stable", "--quiet-ms", "300", "--timeout-ms", "5000")

	// The scroll armed the fence: a plain type is refused, nothing typed.
	wantExit(t, d.dvv("type", limb, "plain"), wire.ExitFence, wire.ScreenChanged)
	reads := strings.Count(d.must("history", limb).stdout, "screen")

	r := d.dvv("type", limb, "--read", "after-read")
	if r.code != 0 {
		t.Fatalf("type --read: %v", r)
	}
	if !strings.Contains(r.stderr, "read the screen first") {
		t.Errorf("type --read does not say it read the screen: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "the text in the xterm", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == "\nafter-read"
	})
	if got := strings.Count(d.must("history", limb).stdout, "screen"); got <= reads {
		t.Errorf("the read of type --read is not in history (%d screen entries, %d before)", got, reads)
	}

	// key --read the same way.
	d.must("key", limb, "Return")
	d.must("wait", limb, "--until", "screen-stable", "--quiet-ms", "300", "--timeout-ms", "5000")
	wantExit(t, d.dvv("key", limb, "a"), wire.ExitFence, wire.ScreenChanged)
	if r := d.dvv("key", limb, "--read", "b"); r.code != 0 {
		t.Fatalf("key --read: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "the key in the xterm", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == "\nafter-read\nb"
	})
}
