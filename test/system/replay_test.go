package system_test

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	dvvkeys "github.com/dvvhq/dvv/pkg/keys"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// taskDesktop is a desktop for the recorded task: xcalc at calcX,calcY and
// an xterm that echoes and keeps what it gets in a file, on a plain root.
type taskDesktop struct {
	x     *testbed.VNC
	limb  string
	typed string
}

func startTaskDesktop(t *testing.T, d *daemon, calcX, calcY int) taskDesktop {
	t.Helper()
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	x.Run(t, "xsetroot", "-solid", "#203040")
	typed := filepath.Join(t.TempDir(), "typed")
	x.Background(t, "xterm", "-geometry", "30x8+0+0", "-e", "sh", "-c",
		fmt.Sprintf("stty -icanon; touch %s.ready; exec cat > %s", typed, typed))
	testbed.WaitFile(t, typed+".ready", 15*time.Second)
	x.Background(t, "xcalc", "-geometry", fmt.Sprintf("+%d+%d", calcX, calcY))
	testbed.Eventually(t, 10*time.Second, "xcalc mapped", func() bool {
		return x.Command("xdotool", "search", "--onlyvisible", "--class", "xcalc").Run() == nil
	})
	r := d.dvv("open", x.Addr, "--protocol", "vnc", "--perceive")
	if r.code != 0 {
		t.Fatal(r)
	}
	limb := strings.TrimSpace(r.stdout)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "10000")
	d.must("wait", limb, "--until", "screen-stable", "--quiet-ms", "500", "--timeout-ms", "10000")
	return taskDesktop{x: x, limb: limb, typed: typed}
}

// person drives a share the way a person's VNC viewer does: raw pointer
// masks and key presses, slowly enough for each to be drawn.
type person struct {
	t *testing.T
	c *rfb.Client
}

func (p person) click(x, y int) {
	p.c.PointerEvent(0, uint16(x), uint16(y))
	p.c.PointerEvent(1, uint16(x), uint16(y))
	p.c.PointerEvent(0, uint16(x), uint16(y))
	time.Sleep(600 * time.Millisecond) // a person's pace: the recording shows each act's effect
}

func (p person) typeText(s string) {
	for _, r := range s {
		sym, shift := dvvkeys.RuneKeysym(r)
		if shift {
			p.c.KeyEvent(dvvkeys.XK_Shift_L, true)
		}
		p.c.KeyEvent(sym, true)
		p.c.KeyEvent(sym, false)
		if shift {
			p.c.KeyEvent(dvvkeys.XK_Shift_L, false)
		}
	}
	time.Sleep(600 * time.Millisecond)
}

func (p person) key(sym uint32) {
	p.c.KeyEvent(sym, true)
	p.c.KeyEvent(sym, false)
	time.Sleep(600 * time.Millisecond)
}

// Where the task clicks, relative to xcalc's corner: its display (a click
// there makes xcalc own PRIMARY with the number shown).
const calcDisplayX, calcDisplayY = 120, 17

// TestRecordByDoingThroughAShare: a person (a scripted RFB client on
// `dvv share`) does a task on a recorded desktop: a click on xcalc, a sum
// typed into it, a click on its display, a click into the xterm, a word
// and Return. The recording's act log holds the person's acts;
// `dvv record export --script` turns them into a script with a checkpoint
// before each act, which `dvv script` runs on a fresh desktop with the
// typed text given as variables: the fresh xcalc computed the sum (its
// PRIMARY selection) and the fresh xterm's program got the word. Replayed
// on a desktop where xcalc moved, `dvv replay` stops at the first act,
// which lands on it, with the expected, actual and diff pictures, and
// nothing was typed there.
func TestRecordByDoingThroughAShare(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool", "xcalc", "xclip", "xsetroot")
	home := t.TempDir()
	d := startDaemonIn(t, "", home, "XDG_STATE_HOME="+filepath.Join(home, "state"))
	const calcX, calcY = 300, 20
	a := startTaskDesktop(t, d, calcX, calcY)

	rec := response(t, d.must("record", "start", a.limb, "--json")).Recordings[0]
	if !strings.HasSuffix(rec.Path, ".fbs") {
		t.Fatalf("record start: %+v", rec)
	}
	sh := response(t, d.must("share", a.limb, "--tcp", "--json")).Share
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := rfb.Dial(ctx, sh.TCP, &rfb.Config{Password: sh.Password, Shared: true})
	if err != nil {
		t.Fatalf("the person's viewer: %v", err)
	}
	time.Sleep(time.Second) // the recording's first frame before the first act
	p := person{t, c}
	p.click(calcX+calcDisplayX, calcY+calcDisplayY)
	p.typeText("7*6=")
	p.click(calcX+calcDisplayX, calcY+calcDisplayY)
	p.click(60, 60)
	p.typeText("done")
	p.key(dvvkeys.XK_Return)
	c.Close()
	testbed.Eventually(t, 10*time.Second, "the person's task done", func() bool {
		b, _ := os.ReadFile(a.typed)
		return string(b) == "done\n"
	})
	if got := calcShows(t, a.x.Display); got != "42" {
		t.Fatalf("the recorded desktop's xcalc shows %q", got)
	}
	d.must("record", "stop", a.limb)

	acts, _ := os.ReadFile(strings.TrimSuffix(rec.Path, ".fbs") + ".acts.jsonl")
	for _, want := range []string{`"op":"click"`, `"op":"type"`, `"textLen":4`, `"keys":"Enter"`} {
		if !strings.Contains(string(acts), want) {
			t.Fatalf("the act log lacks the person's %s:\n%s", want, acts)
		}
	}
	if strings.Contains(string(acts), "done") || strings.Contains(string(acts), "7*6") {
		t.Fatalf("the act log holds typed text:\n%s", acts)
	}

	out := filepath.Join(t.TempDir(), "task.dvv")
	d.must("record", "export", "--script", out, rec.Path)
	text, _ := os.ReadFile(out)
	if n := strings.Count(string(text), "\nexpect "); n != 6 {
		t.Fatalf("want a checkpoint before each of 6 acts, got %d:\n%s", n, text)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), "task.act-1.png")); err != nil {
		t.Fatalf("the checkpoint picture beside the script: %v", err)
	}

	// A fresh desktop like the recorded one: the script does the task.
	b := startTaskDesktop(t, d, calcX, calcY)
	r := d.dvv("script", "--limb", b.limb, out, "--var", "text_2=7*6=", "--var", "text_5=done")
	if r.code != 0 {
		t.Fatalf("the exported script on a fresh desktop: %v\n%s", r, text)
	}
	testbed.Eventually(t, 10*time.Second, "the fresh xterm's word", func() bool {
		b, _ := os.ReadFile(b.typed)
		return string(b) == "done\n"
	})
	if got := calcShows(t, b.x.Display); got != "42" {
		t.Errorf("the fresh xcalc shows %q, want 42", got)
	}

	// A desktop where xcalc moved: replay stops before the first act.
	moved := startTaskDesktop(t, d, 100, 200)
	pics := filepath.Join(t.TempDir(), "pics")
	r = d.dvv("replay", rec.Path, "--limb", moved.limb, "--var", "text_2=7*6=", "--var", "text_5=done", "--artifacts", pics, "--settle", "2s")
	wantExit(t, r, 11, "")
	if !strings.Contains(r.stderr, "before act 1") {
		t.Errorf("replay does not name act 1: %v", r)
	}
	for _, f := range []string{"act-1-expected.png", "act-1-actual.png", "act-1-diff.png"} {
		fh, err := os.Open(filepath.Join(pics, f))
		if err != nil {
			t.Fatalf("replay's pictures: %v", err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil || img.Bounds().Dx() < 96 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(moved.typed); len(b) != 0 {
		t.Errorf("replay typed on the moved desktop: %q", b)
	}
	// Nothing clicked xcalc's display there: no PRIMARY selection at all.
	if out, err := moved.x.Command("xclip", "-o", "-selection", "primary").Output(); err == nil {
		t.Errorf("replay went on past the divergence: xcalc's display was clicked (%q)", out)
	}
	wantExit(t, d.dvv("replay", rec.Path, "--limb", moved.limb), wire.ExitUsage, "")
}
