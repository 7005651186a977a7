package system_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// scriptStep is one object of `dvv script --json`.
type scriptStep struct {
	Line       int    `json:"line"`
	Step       string `json:"step"`
	Status     string `json:"status"`
	Ms         int64  `json:"ms"`
	Exit       int    `json:"exit"`
	Code       string `json:"code"`
	Next       string `json:"next"`
	Screenshot string `json:"screenshot"`
}

// scriptSteps reads the objects `dvv script --json` printed.
func scriptSteps(t *testing.T, r result) []scriptStep {
	t.Helper()
	var steps []scriptStep
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	for dec.More() {
		var s scriptStep
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("--json output does not parse: %v\n%v", err, r)
		}
		steps = append(steps, s)
	}
	return steps
}

// writeScript writes a script file in the test's directory.
func writeScript(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "steps.dvv")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// calcShows reads the number on xcalc's display the X server's way: a
// click on the display makes xcalc own the PRIMARY selection with it.
func calcShows(t *testing.T, d *testbed.Display) string {
	t.Helper()
	out, err := d.Command("xclip", "-o", "-selection", "primary").Output()
	if err != nil {
		t.Fatalf("xclip: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestScriptDrivesXtermAndXcalc: a script of 17 steps on a real Xvnc with
// an xterm and xcalc passes over one attachment and one lease; what the
// xterm's cat received and what xcalc computed (its own display, read as
// its selection) are checked on the X server's side, and the lease the
// script took is given back at its end.
func TestScriptDrivesXtermAndXcalc(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool", "xcalc", "xclip")
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	// Not CatTerm: it gives the xterm the focus for good, and the script
	// moves the pointer between two programs (in a bare X server the
	// keyboard follows the pointer).
	typed := filepath.Join(t.TempDir(), "typed")
	x.Background(t, "xterm", "-geometry", "60x20+0+0", "-e", "sh", "-c",
		fmt.Sprintf("stty -echo -icanon; touch %s.ready; exec cat > %s", typed, typed))
	testbed.WaitFile(t, typed+".ready", 15*time.Second)
	x.Background(t, "xcalc", "-geometry", "+500+0")
	testbed.Eventually(t, 10*time.Second, "xcalc mapped", func() bool {
		return x.Command("xdotool", "search", "--onlyvisible", "--class", "xcalc").Run() == nil
	})
	dir := t.TempDir()
	script := writeScript(t, `# an xterm at the top left, xcalc at x 500
wait --until screen-stable --quiet-ms 300 --timeout-ms 5000
screen --out ${dir}/start.png
click 100 100 --action move      # focus follows the pointer: the xterm
type "hello ${who}"
key Return
wait --until screen-stable --quiet-ms 200 --timeout-ms 5000
type 'second $line'
key Return
sleep 100ms
screen --out ${dir}/middle.png
click 600 200 --action move      # over xcalc's keys
type "12*3="
wait --until screen-stable --quiet-ms 200 --timeout-ms 5000
click 620 17                     # xcalc's display: it takes the selection
status
screen --out ${dir}/end.png
`)
	r := d.dvv("script", "--limb", limb, "--var", "who=world", "--var", "dir="+dir, "--json", script)
	if r.code != 0 {
		t.Fatalf("the script failed: %v", r)
	}
	steps := scriptSteps(t, r)
	if len(steps) != 16 {
		t.Fatalf("want a report of 16 steps, got %d:\n%v", len(steps), r)
	}
	for _, s := range steps {
		if s.Status == "failed" || s.Status == "" {
			t.Errorf("step %d %q: %s", s.Line, s.Step, s.Status)
		}
	}
	if steps[3].Line != 5 || steps[3].Step != `type "hello ${who}"` {
		t.Errorf("the report names the line as written: %+v", steps[3])
	}
	testbed.Eventually(t, 10*time.Second, "the xterm's text", func() bool {
		b, _ := os.ReadFile(typed)
		return string(b) == "hello world\nsecond $line\n"
	})
	if b, _ := os.ReadFile(typed); string(b) != "hello world\nsecond $line\n" {
		t.Errorf("the xterm received %q", b)
	}
	if got := calcShows(t, x.Display); got != "36" {
		t.Errorf("xcalc shows %q, want 36", got)
	}
	for _, f := range []string{"start.png", "middle.png", "end.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("screen --out: %v", err)
		}
	}
	// The lease was the script's, and it gave it back.
	if o := status(t, d, "shell-b", limb); o.Lease.Holder != "" {
		t.Errorf("the lease outlived the script: %+v", o.Lease)
	}
	// The human report: a line per step with its number and status.
	r = d.dvv("script", "--limb", limb, "--var", "who=again", "--var", "dir="+dir, script)
	if r.code != 0 {
		t.Fatal(r)
	}
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 16 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "2 ") {
		t.Errorf("the human report:\n%s", r.stdout)
	}
}

// TestScriptStopsAtTheFence: a key Return scrolls a real xterm full of
// text, which arms the typing fence; the script's next type is refused
// with SCREEN_CHANGED and the script stops at that line (exit 5), types
// nothing after it, and leaves a screenshot of the moment in --artifacts.
// The same script with a wait between (a read) types through.
func TestScriptStopsAtTheFence(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool")
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)

	// As TestTypeReadPassesTheFence: one line of scrolling repaints it all.
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
	d.must("wait", limb, "--until", "screen-stable", "--quiet-ms", "300", "--timeout-ms", "5000")

	artifacts := filepath.Join(t.TempDir(), "artifacts")
	r := d.dvv("script", "--limb", limb, "--artifacts", artifacts, "--json", writeScript(t, `screen --out /dev/null
key Return
wait --until screen-stable --quiet-ms 300 --timeout-ms 5000 # a read: type goes through
type first
key Return
sleep 1s
# nothing read since the scroll: the fence holds
type second
type third
`))
	wantExit(t, r, wire.ExitFence, "")
	steps := scriptSteps(t, r)
	last := steps[len(steps)-1]
	if last.Line != 8 || last.Status != "failed" || last.Code != string(wire.ScreenChanged) || last.Exit != wire.ExitFence || last.Next == "" {
		t.Fatalf("the script did not stop at line 8 with SCREEN_CHANGED: %+v\n%v", steps, r)
	}
	if len(steps) != 7 {
		t.Errorf("want 7 steps reported (the 8th failed, the 9th not run), got %+v", steps)
	}
	testbed.Eventually(t, 10*time.Second, "the xterm's input", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == "\nfirst\n"
	})
	if b, _ := os.ReadFile(out); string(b) != "\nfirst\n" {
		t.Fatalf("the xterm received %q: the script typed past the fence", b)
	}
	shot, err := os.ReadFile(filepath.Join(artifacts, "line-8.png"))
	if err != nil || last.Screenshot == "" {
		t.Fatalf("no screenshot of the failure: %v %+v", err, last)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil || img.Bounds().Dx() != 800 {
		t.Fatalf("the screenshot is not the desktop: %v", err)
	}
	if !strings.Contains(r.stderr, "line 8") {
		t.Errorf("stderr does not name the line: %v", r)
	}
}

// TestScriptVncdoCommandLine: vncdotool's documented command lines run
// unchanged after `dvv script --limb L --vncdo --` (in place of `vncdo -s
// host`): the typed line reaches the xterm's program, capture writes the
// desktop, and a press, drag and release (mousedown, drag, mouseup) selects
// the xterm's text, which the X server's PRIMARY selection then holds.
func TestScriptVncdoCommandLine(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool", "xclip")
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	typed := filepath.Join(t.TempDir(), "typed")
	// Echo on: what is typed shows on the xterm's first line, to select.
	x.Background(t, "xterm", "-geometry", "60x20+0+0", "-e", "sh", "-c",
		fmt.Sprintf("stty -icanon; touch %s.ready; exec cat > %s", typed, typed))
	testbed.WaitFile(t, typed+".ready", 15*time.Second)
	dir := t.TempDir()

	r := d.dvv(append([]string{"script", "--limb", limb, "--vncdo", "--"},
		"move", "100", "100", "click", "1", "type", "hello world", "key", "enter", "capture", filepath.Join(dir, "screen.png"))...)
	if r.code != 0 {
		t.Fatalf("vncdo's command line: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "the typed line", func() bool {
		b, _ := os.ReadFile(typed)
		return string(b) == "hello world\n"
	})
	if f, err := os.Open(filepath.Join(dir, "screen.png")); err != nil {
		t.Fatalf("capture: %v", err)
	} else if img, err := png.Decode(f); err != nil || img.Bounds().Dx() != 800 {
		t.Fatalf("capture did not write the desktop: %v", err)
	}

	// A vncdotool script file: several verbs a line, as vncdo reads one.
	vdo := filepath.Join(dir, "select.vdo")
	os.WriteFile(vdo, []byte("# select the first line of the xterm\nmove 2 6 mousedown 1\ndrag 200 8\nmouseup 1\npause 0.2\n"), 0o600)
	if r := d.dvv("script", "--limb", limb, "--vncdo", vdo); r.code != 0 {
		t.Fatalf("vncdo file: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "the selection", func() bool {
		out, _ := x.Command("xclip", "-o", "-selection", "primary").Output()
		return strings.HasPrefix(string(out), "hello world")
	})

	// A mistake in the script is refused before anything is sent.
	r = d.dvv("script", "--limb", limb, "--vncdo", "--", "type", "x", "-s", "host::5901")
	wantExit(t, r, wire.ExitUsage, "")
	if !strings.Contains(r.stderr, "--limb") {
		t.Errorf("vncdo's -s is not explained: %v", r)
	}
	if b, _ := os.ReadFile(typed); string(b) != "hello world\n" {
		t.Errorf("a refused script typed: %q", b)
	}
}

// TestScriptOnRDP: the same kind of script on an RDP limb (FreeRDP's
// shadow server in front of an X display): the text reaches the xterm.
func TestScriptOnRDP(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600})
	d := startDaemon(t, "")
	typed := srv.CatTerm(t)
	d.must("hosts", "trust", srv.Addr, "--protocol", "rdp", "--accept-new")
	r := d.dvv("open", srv.Addr, "--protocol", "rdp", "--perceive")
	if r.code != 0 {
		t.Fatal(r)
	}
	limb := strings.TrimSpace(r.stdout)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "20000")
	r = d.dvv("script", "--limb", limb, "--json", writeScript(t, `screen --out /dev/null
click 200 100 --action move
type "over rdp ${n}"
key Return
wait --until screen-stable --quiet-ms 200 --timeout-ms 5000
type done
key Return
`), "--var", "n=1")
	if r.code != 0 {
		t.Fatalf("the script on RDP: %v", r)
	}
	if n := len(scriptSteps(t, r)); n != 7 {
		t.Errorf("want 7 steps, got %d: %v", n, r)
	}
	testbed.Eventually(t, 10*time.Second, "the typed lines", func() bool {
		b, _ := os.ReadFile(typed)
		return string(b) == "over rdp 1\ndone\n"
	})
}

// TestScriptOnAGroup: `dvv script --group` runs the script on every member
// at once, a report per member. With another session holding member 1's
// lease, member 1 fails to start and member 0 still runs the whole script;
// with both free, both xterms get the text, and every member's first read
// of the screen comes before any member's last act (every member started
// before any finished).
func TestScriptOnAGroup(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool")
	d := startDaemon(t, "")
	var typed []string
	var addrs []string
	for range 2 {
		x := testbed.StartXvnc(t, testbed.XvncOptions{})
		typed = append(typed, x.CatTerm(t))
		addrs = append(addrs, "--address", x.Addr)
	}
	g := response(t, d.must(append([]string{"group", "open", "--protocol", "vnc", "--perceive", "--json"}, addrs...)...)).Group
	if g == nil || len(g.Members) != 2 {
		t.Fatalf("group open: %+v", g)
	}
	for _, m := range g.Members {
		d.must("wait", m.LimbID, "--until", "connected", "--timeout-ms", "10000")
	}
	script := writeScript(t, "click 100 100 --action move\ntype \"${word}\"\nkey Return\n")

	// Member 1's lease is another session's: only member 1 fails.
	d.run("shell-b", "", nil, "control", "acquire", g.Members[1].LimbID)
	r := d.dvv("script", "--group", g.GroupID, "--var", "word=first", "--json", script)
	if r.code != wire.ExitLease {
		t.Fatalf("want member 1's lease failure (exit %d), got %v", wire.ExitLease, r)
	}
	steps := scriptSteps(t, r)
	if len(steps) != 4 || steps[2].Line != 3 || steps[3].Line != 0 || steps[3].Code != string(wire.LeaseNotHeld) {
		t.Fatalf("want member 0's 3 steps and member 1's failed start: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "member 0's xterm", func() bool {
		b, _ := os.ReadFile(typed[0])
		return string(b) == "first\n"
	})
	if b, _ := os.ReadFile(typed[1]); len(b) != 0 {
		t.Fatalf("member 1 was typed into without its lease: %q", b)
	}
	if !strings.Contains(r.stderr, g.GroupID+"/1") {
		t.Errorf("stderr does not name member 1: %v", r)
	}
	d.run("shell-b", "", nil, "control", "release", g.Members[1].LimbID)

	r = d.dvv("script", "--group", g.GroupID, "--var", "word=both", script)
	if r.code != 0 {
		t.Fatalf("both members free: %v", r)
	}
	for i, f := range typed {
		want := map[int]string{0: "first\nboth\n", 1: "both\n"}[i]
		testbed.Eventually(t, 10*time.Second, "member's xterm", func() bool {
			b, _ := os.ReadFile(f)
			return string(b) == want
		})
	}
	// Every member's first read (the script's start) before any last act.
	lastStart, firstEnd := int64(0), int64(1<<62)
	for _, m := range g.Members {
		h := response(t, d.must("history", m.LimbID, "--json")).History
		var read, key int64
		for _, e := range h {
			if e.Op == "screen" && e.StartedMs > read {
				read = e.StartedMs // the last run's read
			}
			if e.Op == "key" {
				key = max(key, e.StartedMs)
			}
		}
		lastStart, firstEnd = max(lastStart, read), min(firstEnd, key)
	}
	if lastStart > firstEnd {
		t.Errorf("a member read its start screen (%d) after another's last act (%d)", lastStart, firstEnd)
	}
}

// TestScriptOnATerminal: run steps on an SSH limb, with the remote
// command's own output as the ground truth (a file it wrote), and a
// failing command stopping the script with its exit status at its line.
func TestScriptOnATerminal(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)
	out := filepath.Join(t.TempDir(), "out")
	r := d.dvv("script", "--limb", limb, "--json", "--var", "out="+out, writeScript(t, `run --timeout 10s "echo one > ${out}"
term send "echo two >> ${out}"
key Enter
wait --until text --text two --timeout-ms 10000
run --timeout 10s "exit 3"
run --timeout 10s "echo never >> ${out}"
`))
	if r.code != 3 {
		t.Fatalf("want the script to stop with run's status 3: %v", r)
	}
	steps := scriptSteps(t, r)
	if len(steps) != 5 || steps[4].Line != 5 || steps[4].Status != "failed" {
		t.Fatalf("want the script to stop at line 5: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "the remote commands' file", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == "one\ntwo\n"
	})
}
