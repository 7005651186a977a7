//go:build bench

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestRecordingCost measures desktop recordings: bytes per minute for an
// idle desktop, a typing session and a scrolling xterm, beside ffmpeg's
// x11grab of the same display (H.264, ultrafast, 10 frames a second) as
// the anchor, and what a running recording costs an agent's screen read.
func TestRecordingCost(t *testing.T) {
	testbed.Need(t, "ffmpeg", "xdotool")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	desktopScene(t, v.Display)
	focusTerm(t, v.Display)
	d := startDvvd(t)
	c := d.dial(t)
	id := openVNC(t, c, v.Port)
	const span = 15 * time.Second
	perMin := func(b int64) string {
		return fmt.Sprintf("%.1f KiB", float64(b)/1024*float64(time.Minute)/float64(span))
	}

	// scenario runs activity for span while both dvv and x11grab record.
	scenario := func(name string, activity func(stop <-chan struct{})) string {
		rec := must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: id}, Action: "start"}).Recordings[0]
		grab := filepath.Join(t.TempDir(), name+".mp4")
		ff := v.Command("ffmpeg", "-loglevel", "error", "-y", "-f", "x11grab", "-framerate", "10", "-video_size", "1024x768",
			"-i", fmt.Sprintf(":%d", v.Num), "-t", fmt.Sprint(int(span.Seconds())), "-c:v", "libx264", "-preset", "ultrafast", grab)
		if err := ff.Start(); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { activity(stop); close(done) }()
		time.Sleep(span) // the recorded span: what is measured
		close(stop)
		<-done
		ff.Wait()
		rec = must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: id}, Action: "stop"}).Recordings[0]
		st, err := os.Stat(grab)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("| %s | %s | %s |", name, perMin(rec.Bytes), perMin(st.Size()))
	}
	idle := scenario("idle desktop (a clock ticking)", func(stop <-chan struct{}) { <-stop })
	typing := scenario("typing, 8 characters a second", func(stop <-chan struct{}) {
		for {
			select {
			case <-stop:
				return
			case <-time.After(125 * time.Millisecond):
				v.Command("xdotool", "type", "--delay", "0", "x").Run()
			}
		}
	})
	scroll := v.Background(t, "xterm", "-geometry", "100x30+100+100", "-e", "sh", "-c", "while :; do ls -l /usr/bin | head -50; sleep 0.2; done")
	scrolling := scenario("scrolling xterm (50 lines every 0.2 s)", func(stop <-chan struct{}) { <-stop })
	scroll.Kill()

	// An agent's screen read with and without a recording running.
	read := func() durations {
		return timeN(30, func() { must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.5)}) })
	}
	without := read()
	must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: id}, Action: "start"})
	with := read()
	must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: id}, Action: "stop"})
	report(t, "Recording cost (1024x768 Xvnc, benchmark desktop scene)",
		"| per minute | dvv recording (FBS, ZRLE) | ffmpeg x11grab (H.264 ultrafast, 10 fps) |",
		"| --- | --- | --- |", idle, typing, scrolling, "",
		fmt.Sprintf("`screen` at scale 0.5, p50: %s without a recording, %s with one running.", ms(without.pct(0.5)), ms(with.pct(0.5))))
}
