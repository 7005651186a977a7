package system_test

import (
	"image"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/cli"
	"github.com/dvvhq/dvv/pkg/wire"
)

// windowRect is where the X server says a window (found by title) is.
func windowRect(t *testing.T, x *testbed.VNC, title string) image.Rectangle {
	t.Helper()
	var r image.Rectangle
	testbed.Eventually(t, 10*time.Second, "window "+title, func() bool {
		out, err := x.Command("xdotool", "search", "--name", title, "getwindowgeometry", "--shell", "%@").Output()
		if err != nil {
			return false
		}
		v := map[string]int{}
		for _, line := range strings.Split(string(out), "\n") {
			k, s, _ := strings.Cut(strings.TrimSpace(line), "=")
			v[k], _ = strconv.Atoi(s)
		}
		r = image.Rect(v["X"], v["Y"], v["X"]+v["WIDTH"], v["Y"]+v["HEIGHT"])
		return !r.Empty()
	})
	return r
}

func matchRect(m wire.TextMatch) image.Rectangle {
	return image.Rect(m.Box.X, m.Box.Y, m.Box.X+m.Box.W, m.Box.Y+m.Box.H)
}

// TestDesktopText reads text off a real Xvnc desktop: a wait settles when a
// dialog's text appears and when it goes, find boxes lie on the glyphs the
// X server drew, click --text presses the dialog's button, and an
// ambiguous text is refused.
func TestDesktopText(t *testing.T) {
	testbed.Need(t, "tesseract", "xmessage", "xclock", "xterm", "xdotool")
	t.Parallel()
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	x.Background(t, "xclock", "-geometry", "120x120+660+20", "-update", "1")
	x.Background(t, "xterm", "-geometry", "60x10+10+10", "-title", "notes", "-e", "sh", "-c", "echo Quarterly figures are final; exec sleep 600")
	windowRect(t, x, "notes")
	if r := d.dvv("wait", limb, "--until", "text", "--text", "Quarterly figures", "--timeout-ms", "20000"); r.code != 0 {
		t.Fatalf("%v\nthe screen reads:\n%s", r, d.dvv("screen", limb, "--text").stdout)
	}

	// Text that appears after the wait began settles it, and says where.
	if r := d.dvv("find", limb, "Discard changes", "--json"); r.code != cli.ExitNotOnScreen || len(response(t, r).Find.Matches) != 0 {
		t.Fatalf("the dialog's text before the dialog: %v", r)
	}
	done := make(chan result, 1)
	go func() {
		done <- d.dvv("wait", limb, "--until", "text", "--text", "Discard changes", "--timeout-ms", "20000", "--json")
	}()
	dialog := startDialog(t, x, "Discard changes to the report?", "Keep,Discard")
	r := <-done
	w := response(t, r).Wait
	if r.code != 0 || !w.Settled || len(w.Matches) != 1 {
		t.Fatalf("wait for the dialog: %v", r)
	}
	win := windowRect(t, x, "dvvdialog")
	if got := matchRect(w.Matches[0]); !got.In(win) {
		t.Fatalf("wait says the text is at %v, the dialog is at %v", got, win)
	}

	// find: the box lies inside the dialog, the generation fences a click.
	r = d.must("find", limb, "Discard", "--json")
	f := response(t, r).Find
	if len(f.Matches) != 2 || f.Generation != 1 { // the message and the button
		t.Fatalf("find Discard: %v", r)
	}
	for _, m := range f.Matches {
		if !matchRect(m).In(win) || m.Confidence <= 0 || m.Generation != 1 || m.Match != wire.MatchWord {
			t.Fatalf("match %+v outside the dialog %v, or not a whole word", m, win)
		}
	}
	// Inside a longer word ("Discard" in "Discard changes" is whole; "card"
	// is not): said so, and the whole-word matches come first.
	if f := response(t, d.must("find", limb, "card", "--json")).Find; len(f.Matches) != 2 || f.Matches[0].Match != wire.MatchPart {
		t.Fatalf("find card: %+v", f)
	}
	// Unchanged screen near the dialog: answered from the cache.
	if f := response(t, d.must("find", limb, "Keep", "--region", strconv.Itoa(win.Min.X)+","+strconv.Itoa(win.Min.Y)+","+strconv.Itoa(win.Dx())+","+strconv.Itoa(win.Dy()), "--json")).Find; len(f.Matches) != 1 {
		t.Fatalf("find Keep in the dialog: %+v", f)
	}

	// Ambiguous: refused, the candidates listed, nothing clicked.
	d.must("control", "acquire", limb, "--reason", "text test")
	r = d.dvv("click", limb, "--text", "Discard")
	wantExit(t, r, wire.ExitUsage, wire.BadRequest)
	if !strings.Contains(r.stderr, "2 times") || strings.Count(r.stderr, "generation 1") != 2 {
		t.Fatalf("ambiguous click: %v", r)
	}
	wantExit(t, d.dvv("click", limb, "--text", "Nowhere to be seen"), wire.ExitGone, wire.NotFound)
	if dialog.Exited() {
		t.Fatal("a refused click closed the dialog")
	}

	// A unique match: the click lands on the button and the dialog closes.
	r = d.must("click", limb, "--text", "Keep")
	keep := windowButton(t, f, "Keep")
	testbed.Eventually(t, 10*time.Second, "the dialog to close", dialog.Exited)
	px, py := x.MouseLocation(t)
	if !image.Pt(px, py).In(win) {
		t.Fatalf("pointer at %d,%d, dialog was at %v (Keep read at %v)", px, py, win, keep)
	}

	// The dialog is gone: text-gone settles, the xterm's text stays.
	d.must("wait", limb, "--until", "text-gone", "--text", "Discard changes", "--timeout-ms", "20000")
	r = d.must("screen", limb, "--text")
	if !strings.Contains(r.stdout, "Quarterly figures are final") || strings.Contains(r.stdout, "Discard") {
		t.Fatalf("screen --text after the dialog: %v", r)
	}
}

// TestFindMissHasItsOwnExitStatus: on a real desktop, `dvv find` exits 0
// when the text is there and ExitNotOnScreen when it is not (with --json
// too), so a script's `if dvv find …` takes the right branch.
func TestFindMissHasItsOwnExitStatus(t *testing.T) {
	testbed.Need(t, "tesseract", "xterm", "xdotool")
	t.Parallel()
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	x.Background(t, "xterm", "-geometry", "60x10+10+10", "-title", "ledger", "-e", "sh", "-c", "echo Invoices are reconciled; exec sleep 600")
	windowRect(t, x, "ledger")
	d.must("wait", limb, "--until", "text", "--text", "Invoices are reconciled", "--timeout-ms", "20000")

	if r := d.dvv("find", limb, "Invoices"); r.code != 0 || !strings.Contains(r.stdout, "Invoices") {
		t.Fatalf("find of text on the screen: %v", r)
	}
	r := d.dvv("find", limb, "Payroll overdue")
	if r.code != cli.ExitNotOnScreen || !strings.Contains(r.stderr, "not on the screen") || r.stdout != "" {
		t.Fatalf("find of text not on the screen: want exit %d, got %v", cli.ExitNotOnScreen, r)
	}
	r = d.dvv("find", limb, "Payroll overdue", "--json")
	if r.code != cli.ExitNotOnScreen || response(t, r).Find == nil || len(response(t, r).Find.Matches) != 0 {
		t.Fatalf("find --json of text not on the screen: %v", r)
	}
	// The shell's own branch, as a script writes it.
	sh := exec.Command("sh", "-c", `if "$0" find "$1" "Payroll overdue" >/dev/null 2>&1; then echo found; else echo missed; fi; `+
		`if "$0" find "$1" Invoices >/dev/null 2>&1; then echo found; else echo missed; fi`, dvvBin, limb)
	sh.Env = append(append([]string{}, d.env...), "DVV_SESSION=shell-a")
	out, err := sh.Output()
	if err != nil || string(out) != "missed\nfound\n" {
		t.Fatalf("if dvv find …: %q %v", out, err)
	}
}

// windowButton is the box find read for a button label (for messages).
func windowButton(t *testing.T, f *wire.FindResult, label string) image.Rectangle {
	for _, m := range f.Matches {
		if strings.Contains(m.Text, label) {
			return matchRect(m)
		}
	}
	return image.Rectangle{}
}

// startDialog shows an xmessage with buttons at a fixed place; it exits
// when a button is pressed.
func startDialog(t *testing.T, x *testbed.VNC, text, buttons string) *testbed.Proc {
	t.Helper()
	return testbed.Start(t, "xmessage", x.Command("xmessage", "-title", "dvvdialog", "-geometry", "+300+300",
		"-buttons", buttons, text))
}

// TestDesktopTextWithoutEngine: a dvvd whose tesseract is missing answers
// the text ops UNSUPPORTED with how to install it; pixels still work.
func TestDesktopTextWithoutEngine(t *testing.T) {
	t.Parallel()
	d := startDaemonIn(t, "", t.TempDir(), "DVV_TESSERACT=/nonexistent/tesseract", "DVV_OCR_WORKER=off")
	_, limb := openVNC(t, d)
	for _, args := range [][]string{
		{"find", limb, "OK"},
		{"screen", limb, "--text"},
		{"wait", limb, "--until", "text", "--text", "OK"},
		{"wait", limb, "--until", "text-gone", "--text", "OK"},
	} {
		r := d.dvv(args...)
		wantExit(t, r, wire.ExitUnsupported, wire.Unsupported)
		if !strings.Contains(r.stderr, "apt install tesseract-ocr") {
			t.Errorf("%v: no install hint", r)
		}
	}
	shot := t.TempDir() + "/s.png"
	d.must("screen", limb, "--out", shot)
	checkPNG(t, shot, 800, 600)
}
