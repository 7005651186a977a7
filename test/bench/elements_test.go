//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestElements measures the accessibility ops on a real session over its
// SSH sidecar (Xvnc, openbox, at-spi2-core, zenity behind a loopback sshd):
// inspect of a window of about 200 elements, an element act's round trip,
// and the same kind of act done by pixels (screen, find, click).
func TestElements(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{})
	rows := []string{"--list", "--checklist", "--title", "bigbed", "--width", "500", "--height", "700", "--column", "pick", "--column", "fruit", "--column", "n"}
	for i := 0; i < 60; i++ {
		rows = append(rows, "FALSE", fmt.Sprintf("fruit%02d", i), strconv.Itoa(i))
	}
	s.Program(t, "bigbed", "zenity", rows...)
	s.Program(t, "entrybed", "zenity", "--entry", "--title", "entrybed", "--text", "Your name")

	// dvvd with the sidecar's client key and known host in its HOME.
	id := fmt.Sprintf("bench-el-%d", os.Getpid())
	cmd := exec.Command(filepath.Join(binDir, "dvvd"), "--id", id, "--no-discovery", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "HOME="+s.SSHD.Home, "XDG_CONFIG_HOME="+t.TempDir(), "SSH_AUTH_SOCK=")
	testbed.Start(t, "dvvd", cmd)
	d := &dvvd{socket: client.SocketPath(id)}
	testbed.WaitFile(t, d.socket, 10*time.Second)
	c := d.dial(t)
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "bench-session", Protocol: "vnc", Address: "127.0.0.1", Port: s.Port, SSHPort: s.SSHD.Port, SSHUser: s.SSHD.User}})
	perceive := true
	r := must(t, c, wire.OpenArgs{HostID: "bench-session", Perceive: &perceive})
	tg := wire.Target{LimbID: r.LimbID}
	must(t, c, wire.WaitArgs{Target: tg, Until: "connected", TimeoutMs: intp(20000)})
	must(t, c, wire.ControlArgs{Target: tg, Action: "acquire"})

	var elements int
	inspect := timeN(10, func() {
		elements = len(must(t, c, wire.InspectArgs{Target: tg, Window: "bigbed"}).Inspect.Elements)
	})
	find := func(window, role, name string) wire.Element {
		els := must(t, c, wire.InspectArgs{Target: tg, Window: window, Role: role, NameContains: name}).Inspect.Elements
		if len(els) != 1 {
			t.Fatalf("%s %q in %s: %d elements", role, name, window, len(els))
		}
		return els[0]
	}
	entry := find("entrybed", "text", "your name")
	ok := find("entrybed", "push button", "OK")
	n := 0
	setText := timeN(15, func() {
		n++
		a := must(t, c, wire.ElementArgs{Target: tg, Action: "set-text", Element: entry.ID, Text: strp(fmt.Sprintf("name %d", n))}).Element
		if !a.Verified {
			t.Fatalf("set-text not verified: %+v", a)
		}
	})
	focus := timeN(15, func() {
		must(t, c, wire.ElementArgs{Target: tg, Action: "focus", Element: ok.ID})
	})
	byName := timeN(10, func() {
		el := find("entrybed", "push button", "OK")
		must(t, c, wire.ElementArgs{Target: tg, Action: "focus", Element: el.ID})
	})
	// The same target by pixels: a full screen, OCR for "OK", a click on
	// its centre (fenced by the generation the find read).
	pixels := timeN(10, func() {
		must(t, c, wire.ScreenArgs{Target: tg})
		f := must(t, c, wire.FindArgs{Target: tg, Text: strp("OK")}).Find
		if len(f.Matches) == 0 {
			t.Fatal("OK is not on the screen")
		}
		m := f.Matches[0]
		must(t, c, wire.ClickArgs{Target: tg, Action: "move", X: intp(m.Center.X), Y: intp(m.Center.Y), Generation: &m.Generation})
	})
	report(t, "accessibility elements over the SSH sidecar (Xvnc 1024x768, openbox, zenity; loopback sshd; p50 and p90)",
		"| what | p50 | p90 |", "| --- | --- | --- |",
		fmt.Sprintf("| `inspect` of a window of %d elements (a 60-row check list) | %s | %s |", elements, ms(inspect.pct(0.5)), ms(inspect.pct(0.9))),
		fmt.Sprintf("| `element set-text` (id checked, text set, read back exactly) | %s | %s |", ms(setText.pct(0.5)), ms(setText.pct(0.9))),
		fmt.Sprintf("| `element focus` on a button (id checked, focus read back) | %s | %s |", ms(focus.pct(0.5)), ms(focus.pct(0.9))),
		fmt.Sprintf("| by name: `inspect --window --role --name` then `element focus` | %s | %s |", ms(byName.pct(0.5)), ms(byName.pct(0.9))),
		fmt.Sprintf("| by pixels: `screen` (full PNG), `find OK` (OCR), pointer to its centre | %s | %s |", ms(pixels.pct(0.5)), ms(pixels.pct(0.9))),
		"", "Each element op opens a D-Bus connection to the session's accessibility bus over the limb's cached sidecar SSH connection (one streamlocal channel), so every figure includes that set-up.")
}
