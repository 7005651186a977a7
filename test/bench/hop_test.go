//go:build bench

package bench

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/hoptrace"
	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestViewerHop: the change → framebuffer latency of TestViewerBench with
// our RFB client only (no browser), through dvvd's page WebSocket and
// straight to Xvnc, 40 changes. With DVV_HOPTRACE=1 dvvd's stages for
// each change are logged (milliseconds after the change began).
func TestViewerHop(t *testing.T) {
	const W, H = 1024, 768
	trace := ""
	if os.Getenv("DVV_HOPTRACE") == "1" {
		trace = filepath.Join(t.TempDir(), "hoptrace")
		t.Setenv("DVV_HOPTRACE", trace) // dvvd's marks go to the file
		hoptrace.Enable()
	}
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: W, Height: H})
	v.Run(t, "xsetroot", "-solid", "#102030")
	d := startDvvd(t)
	c := d.dial(t)
	id := openVNC(t, c, v.Port)
	link, _ := url.Parse(must(t, c, wire.ViewerArgs{LimbID: id}).Viewer.URL)
	link.RawQuery = "fit=0"
	encs := &rfb.Config{Shared: true, Encodings: []int32{rfb.EncCopyRect, rfb.EncTight, rfb.EncZRLE}, JPEGQuality: 7}
	_, goDvv := goViewerConn(t, link.String(), id, encs)
	goDirect, err := rfb.Dial(context.Background(), v.Addr, encs)
	if err != nil {
		t.Fatal(err)
	}
	go goDirect.Run()
	defer goDirect.Close()
	names := map[any]string{goDvv.Framebuffer(): "viewer", goDirect.Framebuffer(): "direct"}
	var f *os.File
	var rd *bufio.Reader
	time.Sleep(time.Second)
	if trace != "" {
		f, _ = os.Open(trace)
		defer f.Close()
		f.Seek(0, 2)
		rd = bufio.NewReader(f)
		hoptrace.Drain()
	}
	colours := [][3]int{{0xc0, 0x30, 0x30}, {0x30, 0xc0, 0x60}, {0x20, 0x40, 0xd0}, {0xe0, 0xe0, 0x40}}
	var lat [2]durations
	for i := 0; i < 40; i++ {
		col := colours[i%len(colours)]
		var seen [2]chan time.Time
		for k, c := range []*rfb.Client{goDvv, goDirect} {
			seen[k] = make(chan time.Time, 1)
			go watchPixel(c.Framebuffer(), 700, 500, col, seen[k])
		}
		t0 := time.Now()
		v.Run(t, "xsetroot", "-solid", fmt.Sprintf("#%02x%02x%02x", col[0], col[1], col[2]))
		var at [2]time.Time
		for k := range seen {
			select {
			case at[k] = <-seen[k]:
				lat[k] = append(lat[k], at[k].Sub(t0))
			case <-time.After(10 * time.Second):
				t.Fatalf("colour %v never showed", col)
			}
		}
		time.Sleep(100 * time.Millisecond)
		if trace != "" {
			var b strings.Builder
			for _, e := range hoptrace.Drain() {
				fmt.Fprintf(&b, " %s.%s@%.2f", names[e.Who], e.Stage, ms0(e.At, t0))
			}
			b.WriteString(" | dvvd:")
			for {
				line, err := rd.ReadString('\n')
				if err != nil {
					break
				}
				fs := strings.Fields(line)
				ns, _ := strconv.ParseInt(fs[0], 10, 64)
				fmt.Fprintf(&b, " %s.%s@%.2f", fs[1][len(fs[1])-4:], fs[2], ms0(time.Unix(0, ns), t0))
			}
			t.Logf("change %d: dvvd %.2f direct %.2f |%s", i, ms0(at[0], t0), ms0(at[1], t0), b.String())
		}
	}
	report(t, "Change → our RFB client's framebuffer (no browser), 40 changes",
		"| path | p50 | p90 |", "| --- | --- | --- |",
		fmt.Sprintf("| through dvvd's page WebSocket | %s | %s |", ms(lat[0].pct(0.5)), ms(lat[0].pct(0.9))),
		fmt.Sprintf("| straight to Xvnc | %s | %s |", ms(lat[1].pct(0.5)), ms(lat[1].pct(0.9))))
}

func ms0(at, t0 time.Time) float64 { return float64(at.Sub(t0).Microseconds()) / 1000 }
