package rfbserver

import (
	"context"
	"fmt"
	"image"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/hoptracetest"
	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/hoptrace"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// BenchmarkXvncHop: a full-screen colour change on a real Xvnc (xsetroot)
// until a viewer's framebuffer shows it, through the hop dvvd adds (our
// RFB client into a mirror, this server, a viewer with noVNC's encodings)
// and, in the same iteration, straight from Xvnc to the same kind of
// viewer. Reported: the p50 of each path and of their difference (the
// hop's cost). With DVV_HOPTRACE=1 it also logs, per change, when each
// stage of the hop was reached. Xvnc writes each update to the client
// connected last first: the direct viewer is connected after the mirror's
// client (as in TestViewerBench) or before it.
func BenchmarkXvncHop(b *testing.B) {
	for _, directFirst := range []bool{false, true} {
		name := "direct-connected-last"
		if directFirst {
			name = "direct-connected-first"
		}
		b.Run(name, func(b *testing.B) { benchHop(b, directFirst) })
	}
}

func benchHop(b *testing.B, directFirst bool) {
	if os.Getenv("DVV_HOPTRACE") == "1" {
		hoptracetest.Record()
		b.Cleanup(func() { hoptrace.SetSink(nil) })
	}
	testbed.Need(b, "Xvnc", "xsetroot")
	v := testbed.StartXvnc(b, testbed.XvncOptions{Width: 1024, Height: 768})
	v.Run(b, "xsetroot", "-solid", "#102030")
	encs := &rfb.Config{Shared: true, Encodings: []int32{rfb.EncCopyRect, rfb.EncTight, rfb.EncZRLE}, JPEGQuality: 7}
	var direct *rfb.Client
	if directFirst {
		direct = dial(b, v.Addr, encs)
	}
	up, err := rfb.Dial(context.Background(), v.Addr, &rfb.Config{Shared: true})
	if err != nil {
		b.Fatal(err)
	}
	go up.Run()
	b.Cleanup(func() { up.Close() })
	hop := dial(b, serve(b, Config{Buffer: up.Framebuffer()}), encs)
	if direct == nil {
		direct = dial(b, v.Addr, encs)
	}
	names := map[any]string{up.Framebuffer(): "mirror", hop.Framebuffer(): "viewer", direct.Framebuffer(): "direct"}
	colours := [][3]int{{0xc0, 0x30, 0x30}, {0x30, 0xc0, 0x60}, {0x20, 0x40, 0xd0}, {0xe0, 0xe0, 0x40}}
	var hops, directs, diffs []time.Duration
	time.Sleep(time.Second) // first frames
	hoptracetest.Drain()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		col := colours[i%len(colours)]
		seen := [2]chan time.Time{make(chan time.Time, 1), make(chan time.Time, 1)}
		go seePixel(hop.Framebuffer(), 700, 500, col, seen[0])
		go seePixel(direct.Framebuffer(), 700, 500, col, seen[1])
		t0 := time.Now()
		v.Run(b, "xsetroot", "-solid", fmt.Sprintf("#%02x%02x%02x", col[0], col[1], col[2]))
		var at [2]time.Time
		for k := range seen {
			select {
			case at[k] = <-seen[k]:
			case <-time.After(10 * time.Second):
				b.Fatalf("colour %v never showed", col)
			}
		}
		hops, directs = append(hops, at[0].Sub(t0)), append(directs, at[1].Sub(t0))
		diffs = append(diffs, at[0].Sub(at[1]))
		if hoptrace.On() {
			b.Logf("change %d: direct %v hop %v | %s", i, at[1].Sub(t0).Round(10*time.Microsecond), at[0].Sub(t0).Round(10*time.Microsecond), stages(hoptracetest.Drain(), names, t0))
		}
		time.Sleep(50 * time.Millisecond) // let the last update's fences settle
	}
	b.StopTimer()
	b.ReportMetric(float64(median(hops).Microseconds())/1000, "hop-p50-ms")
	b.ReportMetric(float64(median(directs).Microseconds())/1000, "direct-p50-ms")
	b.ReportMetric(float64(median(diffs).Microseconds())/1000, "gap-p50-ms")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// stages lists the trace's events, milliseconds after t0.
func stages(ev []hoptrace.Event, names map[any]string, t0 time.Time) string {
	var b strings.Builder
	for _, e := range ev {
		who, ok := names[e.Who]
		if !ok {
			who = "session"
		}
		fmt.Fprintf(&b, " %s.%s@%.2f", who, e.Stage, float64(e.At.Sub(t0).Microseconds())/1000)
	}
	return b.String()
}

// seePixel sends the time pixel (x, y) of buf first shows colour c.
func seePixel(buf *fb.Buffer, x, y int, c [3]int, seen chan<- time.Time) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		changed := buf.Changed()
		img, _ := buf.Snapshot(image.Rect(x, y, x+1, y+1))
		if len(img.Pix) >= 3 && int(img.Pix[0]) == c[0] && int(img.Pix[1]) == c[1] && int(img.Pix[2]) == c[2] {
			seen <- time.Now()
			return
		}
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond):
		}
	}
}
