package system_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	dvvkeys "github.com/dvvhq/dvv/pkg/keys"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestScriptFindsAndClicksText: a script's OCR steps on a real xmessage
// dialog. A click --text on a label that is not there stops the script at
// its line and the dialog stays up; then wait --until text, find and
// click --text Discard press the button: xmessage itself prints the
// button it got (-print), and the find step's output names the word.
func TestScriptFindsAndClicksText(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "tesseract", "xmessage", "xdotool")
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	dialog := testbed.Start(t, "xmessage", x.Command("xmessage", "-print", "-title", "dvvdialog", "-geometry", "+300+300",
		"-buttons", "Keep,Discard", "Throw away the edits to the ledger?"))

	r := d.dvv("script", "--limb", limb, "--json", writeScript(t, `wait --until text --text "edits to the ledger" --timeout-ms 20000
click --text "Nowhere to be seen"
click --text Keep
`))
	steps := scriptSteps(t, r)
	if r.code == 0 || len(steps) != 2 || steps[1].Line != 2 || steps[1].Status != "failed" || steps[1].Code != string(wire.NotFound) {
		t.Fatalf("want the script stopped at line 2 with NOT_FOUND: %+v\n%v", steps, r)
	}
	if dialog.Exited() {
		t.Fatal("a script stopped before its click --text Keep closed the dialog")
	}

	r = d.dvv("script", "--limb", limb, "--json", writeScript(t, `wait --until text --text "edits to the ledger" --timeout-ms 20000
find Discard
click --text Discard
`))
	if r.code != 0 {
		t.Fatalf("the OCR script: %v", r)
	}
	steps = scriptSteps(t, r)
	if len(steps) != 3 || !strings.Contains(steps[1].Output, "Discard") {
		t.Fatalf("find's step does not say where Discard is: %+v", steps)
	}
	testbed.Eventually(t, 10*time.Second, "the dialog to close", dialog.Exited)
	if b, _ := os.ReadFile(dialog.Log); strings.TrimSpace(string(b)) != "Discard" {
		t.Errorf("xmessage got the button %q, want Discard", b)
	}
}

// TestReplayAtRecordedSpeed: a person's task through a share is recorded
// and replayed with --speed recorded on a fresh desktop. The report waits
// before each act after the first exactly the gap between the two acts'
// recorded times (from the exported script's act headers; the test reads
// the durations replay chose, never the clock), the acts run in the
// recorded order, and the fresh xcalc and xterm show the task done.
func TestReplayAtRecordedSpeed(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool", "xcalc", "xclip", "xsetroot")
	home := t.TempDir()
	d := startDaemonIn(t, "", home, "XDG_STATE_HOME="+filepath.Join(home, "state"))
	const calcX, calcY = 300, 20
	a := startTaskDesktop(t, d, calcX, calcY)
	rec := response(t, d.must("record", "start", a.limb, "--json")).Recordings[0]
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
	d.must("record", "stop", a.limb)

	// The recorded time of each act, as replay reads it.
	out := filepath.Join(t.TempDir(), "task.dvv")
	d.must("record", "export", "--script", out, rec.Path)
	text, _ := os.ReadFile(out)
	header := regexp.MustCompile(`(?m)^# act (\d+) t=([0-9.]+) `)
	at := map[int]float64{}
	for _, m := range header.FindAllStringSubmatch(string(text), -1) {
		n, _ := strconv.Atoi(m[1])
		at[n], _ = strconv.ParseFloat(m[2], 64)
	}
	if len(at) != 6 {
		t.Fatalf("want 6 acts in the export, got %v:\n%s", at, text)
	}

	b := startTaskDesktop(t, d, calcX, calcY)
	r := d.dvv("replay", rec.Path, "--limb", b.limb, "--speed", "recorded", "--json", "--var", "text_2=7*6=", "--var", "text_5=done")
	if r.code != 0 {
		t.Fatalf("replay --speed recorded: %v", r)
	}
	steps := scriptSteps(t, r)
	lastAct, sleeps := 0, 0
	for i, s := range steps {
		if s.Line < lastAct {
			t.Errorf("step %d (act %d) after act %d: out of the recorded order", i, s.Line, lastAct)
		}
		if !strings.HasSuffix(s.Step, "(as recorded)") {
			lastAct = s.Line
			continue
		}
		sleeps++
		// The wait stands first in its act, after the previous act's steps.
		if s.Line != lastAct+1 || i+1 >= len(steps) || steps[i+1].Line != s.Line {
			t.Errorf("the wait %q (act %d) is not the first step of the act after %d", s.Step, s.Line, lastAct)
		}
		d, err := time.ParseDuration(strings.Fields(s.Step)[1])
		want := time.Duration((at[s.Line] - at[s.Line-1]) * float64(time.Second)).Round(time.Millisecond)
		if err != nil || d != want {
			t.Errorf("act %d waits %q, want the recorded gap %v (t=%v after t=%v)", s.Line, s.Step, want, at[s.Line], at[s.Line-1])
		}
	}
	if sleeps != 5 {
		t.Errorf("want a recorded wait before each of acts 2..6, got %d:\n%v", sleeps, r)
	}
	testbed.Eventually(t, 10*time.Second, "the fresh xterm's word", func() bool {
		got, _ := os.ReadFile(b.typed)
		return string(got) == "done\n"
	})
	if got := calcShows(t, b.x.Display); got != "42" {
		t.Errorf("the fresh xcalc shows %q, want 42", got)
	}
}
