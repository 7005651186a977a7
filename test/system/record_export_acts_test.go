package system_test

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/recording"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestRecordExportActsLineUp records a real Xvnc while an agent clicks on
// the bare root, which maps a window (xdotool behave: the X server's own
// answer to the click, with no program to start), and types into an xterm
// that echoes. `dvv record export --acts --fps 10` renders the recording;
// ffmpeg reads the video back frame by frame. For each act, the first
// frame its effect shows on (the red window, the typed text) is within one
// frame of the first frame the act is drawn on, and that frame carries the
// act: the click's ring at the click's pixel, the typing's label.
func TestRecordExportActsLineUp(t *testing.T) {
	testbed.Need(t, "ffmpeg", "xterm", "xdotool", "xwininfo")
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	x.Run(t, "xsetroot", "-solid", "#203040")

	// The window the click opens: mapped by xdotool on a click on the root.
	x.Background(t, "xterm", "-geometry", "20x5+320+110", "-bg", "red", "-title", "opened-by-click", "-e", "sleep", "600")
	var win string
	testbed.Eventually(t, 15*time.Second, "the window to open", func() bool {
		o, _ := x.Command("xdotool", "search", "--name", "opened-by-click").Output()
		win = strings.TrimSpace(string(o))
		return win != "" && mapState(t, x, win) == "IsViewable"
	})
	x.Run(t, "xdotool", "windowunmap", "--sync", win)
	root := strings.Fields(strings.SplitN(x.Run(t, "xwininfo", "-root"), "Window id:", 2)[1])[0]
	x.Background(t, "xdotool", "behave", root, "mouse-click", "windowmap", win)
	// behave says nothing when it listens: click until it maps, then hide
	// the window again.
	testbed.Eventually(t, 15*time.Second, "xdotool behave to listen", func() bool {
		x.Run(t, "xdotool", "mousemove", "600", "100", "click", "1")
		return mapState(t, x, win) == "IsViewable"
	})
	x.Run(t, "xdotool", "windowunmap", "--sync", win)

	// The xterm typed into: it echoes, and keeps what it got in a file.
	dir := t.TempDir()
	typed, ready := filepath.Join(dir, "typed"), filepath.Join(dir, "ready")
	x.Background(t, "xterm", "-geometry", "40x4+0+260", "-bg", "black", "-fg", "white", "-title", "typing",
		"-e", "sh", "-c", fmt.Sprintf("stty -icanon; touch %s; exec cat > %s", ready, typed))
	testbed.WaitFile(t, ready, 15*time.Second)
	testbed.Eventually(t, 10*time.Second, "the typing xterm to take the keyboard", func() bool {
		o, _ := x.Command("xdotool", "search", "--name", "^typing$").Output()
		f := strings.Fields(string(o))
		return len(f) > 0 && x.Command("xdotool", "windowfocus", "--sync", f[0]).Run() == nil
	})

	d := startDaemon(t, "")
	limb := strings.TrimSpace(d.must("open", x.Addr, "--protocol", "vnc", "--perceive").stdout)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "10000")
	d.must("control", "acquire", limb, "--reason", "export test")
	rec := response(t, d.must("record", "start", limb, "--json")).Recordings[0]
	d.must("wait", limb, "--until", "screen-stable", "--quiet-ms", "500", "--timeout-ms", "8000")
	d.must("screen", limb, "--out", filepath.Join(dir, "before.png"))
	clicked := response(t, d.must("click", limb, "300", "100", "--generation", "1", "--json")).Verification
	testbed.Eventually(t, 5*time.Second, "the click to open the window", func() bool { return mapState(t, x, win) == "IsViewable" })
	d.must("wait", limb, "--until", "screen-stable", "--quiet-ms", "500", "--timeout-ms", "8000")
	var typed1 *wire.Verification
	testbed.Eventually(t, 15*time.Second, "typing to pass the fence", func() bool {
		d.must("screen", limb, "--out", filepath.Join(dir, "shot.png"))
		r := d.dvv("type", limb, "hello", "--json")
		if r.code == 0 {
			typed1 = response(t, r).Verification
		}
		return r.code == 0
	})
	testbed.Eventually(t, 10*time.Second, "the typed text in the xterm's file", func() bool {
		b, _ := os.ReadFile(typed)
		return string(b) == "hello"
	})
	d.must("wait", limb, "--until", "screen-stable", "--quiet-ms", "500", "--timeout-ms", "8000")
	d.must("record", "stop", limb)

	out := filepath.Join(dir, "run.mp4")
	d.must("record", "export", rec.Path, "--mp4", "--acts", "--fps", "10", "--out", out)
	frames := readFrames(t, out, filepath.Join(dir, "frames"))
	acts, err := recording.ReadActs(rec.ActsPath)
	if err != nil {
		t.Fatal(err)
	}
	var click, typing *recording.Act
	for i, a := range acts {
		switch {
		case a.Op == "click" && a.Outcome == "ok":
			click = &acts[i]
		case a.Op == "type" && a.Outcome == "ok":
			typing = &acts[i]
		}
	}
	if click == nil || typing == nil {
		t.Fatalf("acts %+v", acts)
	}

	// The click: the red window at 320,110 (its inside, away from the ring).
	opened := func(img image.Image) bool {
		return meanIn(img, image.Rect(340, 130, 420, 170), func(r, g, b int) bool { return r > 180 && g < 70 && b < 70 }) > 0.9
	}
	ring := func(img image.Image) bool {
		return isActColour(img.At(300+14, 100)) && isActColour(img.At(300-14, 100))
	}
	checkLinedUp(t, "the click", frames, click, clicked, opened, ring)

	// The typing: more white on the xterm's first row (y 260.., under no
	// label) than when the click was sent, the cursor's block included.
	row := func(img image.Image) float64 {
		return meanIn(img, image.Rect(0, 260, 120, 282), func(r, g, b int) bool { return r > 150 && g > 150 && b > 150 })
	}
	before := row(frames[int(math.Ceil(click.T*10))])
	text := func(img image.Image) bool { return row(img) > before+0.01 }
	label := func(img image.Image) bool {
		return meanIn(img, image.Rect(8, 8, 150, 34), func(r, g, b int) bool { return r < 40 && g < 40 && b < 40 }) > 0.5
	}
	checkLinedUp(t, "the typing", frames, typing, typed1, text, label)
}

// checkLinedUp: the act is drawn from its own frame (its time rounded up
// to a frame at 10 fps) and not before, and its effect first shows within
// one frame of when dvvd's mirror first had it. That moment is dvvd's own
// ground truth, the act's verification (its evidence came afterMs after
// the act ended): the delay between an act and its effect is the remote
// machine's, and the video must keep it, neither hide nor stretch it.
func checkLinedUp(t *testing.T, what string, frames []image.Image, act *recording.Act, v *wire.Verification, effect, drawn func(image.Image) bool) {
	t.Helper()
	if v == nil || v.Status != wire.VerifyVerified {
		t.Fatalf("%s: dvvd did not tie a change to the act, so there is no moment to line up with: %+v", what, v)
	}
	end := act.End
	if end < act.T {
		end = act.T
	}
	seen := end + float64(v.AfterMs)/1000
	actFrame := int(math.Ceil(act.T*10 - 1e-9))
	seenFrame := int(math.Ceil(seen*10 - 1e-9))
	effectFrame := -1
	for i, f := range frames {
		if effect(f) {
			effectFrame = i
			break
		}
	}
	if actFrame >= len(frames) || effectFrame < 0 {
		t.Fatalf("%s: act on frame %d of %d, effect first on %d", what, actFrame, len(frames), effectFrame)
	}
	if !drawn(frames[actFrame]) || (actFrame > 0 && drawn(frames[actFrame-1])) {
		t.Errorf("%s: the act is not drawn from its frame %d on", what, actFrame)
	}
	if effectFrame < actFrame {
		t.Errorf("%s: its effect shows on frame %d, before the act's frame %d", what, effectFrame, actFrame)
	}
	if d := effectFrame - seenFrame; d < -1 || d > 1 {
		t.Errorf("%s: sent at %.3f s (frame %d), dvvd saw its effect %d ms after (frame %d), the video first shows it on frame %d",
			what, act.T, actFrame, v.AfterMs, seenFrame, effectFrame)
	}
	t.Logf("%s: sent at %.3f s, act drawn from frame %d, effect seen by dvvd on frame %d, in the video on frame %d",
		what, act.T, actFrame, seenFrame, effectFrame)
}

func mapState(t *testing.T, x *testbed.VNC, win string) string {
	o, _ := x.Command("xwininfo", "-id", win).Output()
	_, s, _ := strings.Cut(string(o), "Map State: ")
	return strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
}

// readFrames decodes every frame of a video with ffmpeg.
func readFrames(t *testing.T, video, dir string) []image.Image {
	t.Helper()
	os.MkdirAll(dir, 0o700)
	if out, err := exec.Command("ffmpeg", "-v", "error", "-i", video, "-vsync", "0", filepath.Join(dir, "%05d.png")).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg frames: %v %s", err, out)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	var frames []image.Image
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, img)
	}
	return frames
}

// meanIn is the share of a rectangle's pixels that pass.
func meanIn(img image.Image, r image.Rectangle, pass func(r, g, b int) bool) float64 {
	n, ok := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			n++
			if pass(int(cr>>8), int(cg>>8), int(cb>>8)) {
				ok++
			}
		}
	}
	return float64(ok) / float64(n)
}

// isActColour is the drawn act's magenta (#ff00c8), after H.264.
func isActColour(c interface{ RGBA() (r, g, b, a uint32) }) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 180 && g>>8 < 90 && b>>8 > 130
}

// TestRecordExportTerminal renders a terminal recording with its acts
// through `dvv record export`, and refuses what is not a recording or a
// frame rate it cannot make, saying what to give.
func TestRecordExportTerminal(t *testing.T) {
	testbed.Need(t, "ffmpeg", "ffprobe")
	dir := t.TempDir()
	cast := filepath.Join(dir, "ssh-1-20261201T130000.000.cast")
	os.WriteFile(cast, []byte(`{"version":2,"width":30,"height":5}
[0.1, "o", "$ echo hi\r\nhi\r\n$ "]
`), 0o600)
	os.WriteFile(recording.ActsPath(cast), []byte(`{"t":0.05,"op":"term_send","attachment":"a","textLen":8,"outcome":"ok"}
`), 0o600)
	d := &daemon{t: t, env: cleanEnv()} // no dvvd needs to run
	out := filepath.Join(dir, "term.mp4")
	d.must("record", "export", cast, "--mp4", "--acts", "--out", out)
	probe, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=width,height", "-of", "csv=p=0", out).Output()
	if err != nil || strings.TrimSpace(string(probe)) != "300,100" {
		t.Fatalf("ffprobe says %q (%v), want 30x5 cells of 10x20", probe, err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"record", "export", filepath.Join(dir, "notes.txt"), "--mp4"}, "a desktop's ends in .fbs, a terminal's in .cast"},
		{[]string{"record", "export", cast, "--mp4", "--fps", "0"}, "say 1 to 60 frames a second"},
		{[]string{"record", "export", cast}, "say which format: --mp4"},
	} {
		if r := d.dvv(c.args...); r.code != 2 || !strings.Contains(r.stderr, c.says) {
			t.Errorf("want a usage error saying %q: %v", c.says, r)
		}
	}
}
