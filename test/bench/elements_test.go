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
		"", "The limb keeps one D-Bus connection to the session's accessibility bus over its cached sidecar SSH connection (one streamlocal channel), so only the first op pays for its set-up.")
}

// TestElementsAlternating compares two dvvd builds on one session: the
// build under test and the one DVV_BENCH_BASE_DVVD names (built from the
// code before a change). Each has its own limb on the same desktop, and the
// builds take turns op by op, round by round, the order flipped each round,
// so a shared machine's load drift falls on both alike.
//
//	git archive BASE | tar -x -C /tmp/base && (cd /tmp/base && go build -o /tmp/base/bin/ ./cmd/dvvd)
//	DVV_BENCH_BASE_DVVD=/tmp/base/bin/dvvd go test -tags bench -run 'TestElementsAlternating$' -v ./test/bench
func TestElementsAlternating(t *testing.T) {
	base := os.Getenv("DVV_BENCH_BASE_DVVD")
	if base == "" {
		t.Skip("DVV_BENCH_BASE_DVVD names the other build's dvvd")
	}
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{})
	rows := []string{"--list", "--checklist", "--title", "bigbed", "--width", "500", "--height", "700", "--column", "pick", "--column", "fruit", "--column", "n"}
	for i := 0; i < 60; i++ {
		rows = append(rows, "FALSE", fmt.Sprintf("fruit%02d", i), strconv.Itoa(i))
	}
	s.Program(t, "bigbed", "zenity", rows...)
	s.Program(t, "entrybed", "zenity", "--entry", "--title", "entrybed", "--text", "Your name")

	type build struct {
		name                           string
		d                              *dvvd
		c                              *client.Client
		tg                             wire.Target
		ops                            *opWatch
		entry, ok                      wire.Element
		elements                       int
		inspect, focus, byName, waited durations
	}
	start := func(name, bin string) *build {
		id := fmt.Sprintf("bench-alt-%s-%d", name, os.Getpid())
		cmd := exec.Command(bin, "--id", id, "--no-discovery", "--log-level", "warn")
		cmd.Env = append(os.Environ(), "HOME="+s.SSHD.Home, "XDG_CONFIG_HOME="+t.TempDir(), "SSH_AUTH_SOCK=")
		testbed.Start(t, "dvvd-"+name, cmd)
		b := &build{name: name, d: &dvvd{socket: client.SocketPath(id)}}
		testbed.WaitFile(t, b.d.socket, 10*time.Second)
		b.c = b.d.dial(t)
		must(t, b.c, wire.HostAddArgs{Host: wire.HostSpec{Name: "bench-session", Protocol: "vnc", Address: "127.0.0.1", Port: s.Port, SSHPort: s.SSHD.Port, SSHUser: s.SSHD.User}})
		perceive := true
		r := must(t, b.c, wire.OpenArgs{HostID: "bench-session", Perceive: &perceive})
		b.tg = wire.Target{LimbID: r.LimbID}
		must(t, b.c, wire.WaitArgs{Target: b.tg, Until: "connected", TimeoutMs: intp(20000)})
		must(t, b.c, wire.ControlArgs{Target: b.tg, Action: "acquire"})
		b.ops = watchOps(t, b.d, r.LimbID)
		return b
	}
	builds := []*build{start("before", base), start("after", filepath.Join(binDir, "dvvd"))}
	find := func(b *build, window, role, name string) wire.Element {
		els := must(t, b.c, wire.InspectArgs{Target: b.tg, Window: window, Role: role, NameContains: name}).Inspect.Elements
		if len(els) != 1 {
			t.Fatalf("%s: %s %q in %s: %d elements", b.name, role, name, window, len(els))
		}
		return els[0]
	}
	for _, b := range builds {
		b.entry, b.ok = find(b, "entrybed", "text", "your name"), find(b, "entrybed", "push button", "OK")
	}
	timed := func(fn func()) time.Duration { t0 := time.Now(); fn(); return time.Since(t0) }
	const rounds = 20
	for r := 0; r < rounds; r++ {
		order := []*build{builds[0], builds[1]}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, b := range order {
			b.inspect = append(b.inspect, timed(func() {
				b.elements = len(must(t, b.c, wire.InspectArgs{Target: b.tg, Window: "bigbed"}).Inspect.Elements)
			}))
		}
		for _, b := range order {
			b.focus = append(b.focus, timed(func() { must(t, b.c, wire.ElementArgs{Target: b.tg, Action: "focus", Element: b.ok.ID}) }))
		}
		for _, b := range order {
			b.byName = append(b.byName, timed(func() {
				el := find(b, "entrybed", "push button", "OK")
				must(t, b.c, wire.ElementArgs{Target: b.tg, Action: "focus", Element: el.ID})
			}))
		}
		// A wait for a text, then the text set: from the act's start to the
		// wait's answer (the act's own round trip included).
		for _, b := range order {
			want := fmt.Sprintf("%s %d", b.name, r)
			done := make(chan time.Time, 1)
			b.ops.mark(t)
			go func() {
				w := must(t, b.c, wire.WaitArgs{Target: b.tg, Until: "text-equals", Element: b.entry.ID, Text: strp(want), TimeoutMs: intp(20000)}).Wait
				if !w.Settled {
					t.Errorf("%s: the wait for %q did not settle", b.name, want)
				}
				done <- time.Now()
			}()
			b.ops.started(t, wire.OpWait, 1)
			t0 := time.Now()
			must(t, b.c, wire.ElementArgs{Target: b.tg, Action: "set-text", Element: b.entry.ID, Text: strp(want)})
			b.waited = append(b.waited, (<-done).Sub(t0))
		}
	}
	row := func(what string, pick func(*build) durations) string {
		bf, af := pick(builds[0]), pick(builds[1])
		return fmt.Sprintf("| %s | %s | %s | %s | %s |", what, ms(bf.pct(0.5)), ms(bf.pct(0.9)), ms(af.pct(0.5)), ms(af.pct(0.9)))
	}
	report(t, fmt.Sprintf("accessibility elements over the SSH sidecar, two builds alternating (%d rounds)", rounds),
		"| what | before p50 | before p90 | after p50 | after p90 |", "| --- | --- | --- | --- | --- |",
		row(fmt.Sprintf("`inspect` of a window of %d elements (a 60-row check list)", builds[1].elements), func(b *build) durations { return b.inspect }),
		row("`element focus` on a button (id checked, focus read back)", func(b *build) durations { return b.focus }),
		row("by name: `inspect --window --role --name` then `element focus`", func(b *build) durations { return b.byName }),
		row("`wait --until text-equals`, then `element set-text`: the act's start to the wait's answer", func(b *build) durations { return b.waited }))
}
