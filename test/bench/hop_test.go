//go:build bench

package bench

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/hoptracetest"
	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/hoptrace"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// hopTrace follows the stages of each change through dvvd and this
// process's RFB clients (pkg/hoptrace), when DVV_HOPTRACE=1: dvvd,
// started after newHopTrace, appends its marks to a file.
type hopTrace struct {
	f      *os.File
	rd     *bufio.Reader
	names  map[any]string
	stages map[string][]float64 // per stage, its first time in each change, ms after the change began
	order  []string
}

func newHopTrace(t *testing.T) *hopTrace {
	if os.Getenv("DVV_HOPTRACE") != "1" {
		return nil
	}
	path := filepath.Join(t.TempDir(), "hoptrace")
	t.Setenv("DVV_HOPTRACE", path)
	hoptracetest.Record()
	t.Cleanup(func() { hoptrace.SetSink(nil) })
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &hopTrace{f: f, rd: bufio.NewReader(f), names: map[any]string{}, stages: map[string][]float64{}}
}

// skip forgets everything marked so far.
func (h *hopTrace) skip() {
	if h == nil {
		return
	}
	for _, err := h.rd.ReadString('\n'); err == nil; _, err = h.rd.ReadString('\n') {
	}
	hoptracetest.Drain()
}

// change reads the marks of one change that began at t0, records each
// stage's first time and returns them as one line. extra are times this
// test took itself (a browser's canvas).
func (h *hopTrace) change(t0 time.Time, extra map[string]time.Time) string {
	if h == nil {
		return ""
	}
	first := map[string]float64{}
	var order []string
	note := func(stage string, at time.Time) {
		ms := float64(at.Sub(t0).Microseconds()) / 1000
		if _, ok := first[stage]; ok || ms < 0 {
			return
		}
		first[stage] = ms
		order = append(order, stage)
	}
	for _, e := range hoptracetest.Drain() {
		note(h.names[e.Who]+"."+e.Stage, e.At)
	}
	// A session wakes for other reasons too (a fence's answer): its
	// stages count from the mirror's update on.
	type mark struct {
		who, stage string
		at         time.Time
	}
	var marks []mark
	var published time.Time
	sessions := map[string]string{}
	for {
		line, err := h.rd.ReadString('\n')
		if err != nil {
			break
		}
		fs := strings.Fields(line)
		if len(fs) != 3 {
			continue
		}
		ns, _ := strconv.ParseInt(fs[0], 10, 64)
		m := mark{who: "dvvd upstream", stage: fs[2], at: time.Unix(0, ns)}
		if i := strings.IndexByte(m.stage, '('); i > 0 {
			m.stage = m.stage[:i]
		}
		switch {
		case m.stage == "published" && published.IsZero() && !m.at.Before(t0):
			published = m.at
		case strings.HasPrefix(m.stage, "motion.") || m.stage == "read" || m.stage == "decoded" || m.stage == "published":
		default:
			if _, ok := sessions[fs[1]]; !ok {
				sessions[fs[1]] = fmt.Sprintf("dvvd session %d", len(sessions)+1)
			}
			m.who = sessions[fs[1]]
		}
		marks = append(marks, m)
	}
	for _, m := range marks {
		if m.who == "dvvd upstream" || !published.IsZero() && !m.at.Before(published) {
			note(m.who+"."+m.stage, m.at)
		}
	}
	for k, at := range extra {
		note(k, at)
	}
	slices.SortFunc(order, func(a, b string) int {
		switch {
		case first[a] < first[b]:
			return -1
		case first[a] > first[b]:
			return 1
		}
		return 0
	})
	var b strings.Builder
	for _, k := range order {
		if _, ok := h.stages[k]; !ok {
			h.order = append(h.order, k)
		}
		h.stages[k] = append(h.stages[k], first[k])
		fmt.Fprintf(&b, " %s@%.2f", k, first[k])
	}
	return b.String()
}

// table is each stage's median time after the change began.
func (h *hopTrace) table() []string {
	if h == nil {
		return nil
	}
	type row struct {
		stage string
		p50   float64
		n     int
	}
	var rows []row
	for _, k := range h.order {
		v := slices.Clone(h.stages[k])
		slices.Sort(v)
		rows = append(rows, row{k, v[len(v)/2], len(v)})
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		switch {
		case a.p50 < b.p50:
			return -1
		case a.p50 > b.p50:
			return 1
		}
		return 0
	})
	out := []string{"| stage (first time in a change) | p50 after the change began | changes |", "| --- | --- | --- |"}
	for _, r := range rows {
		out = append(out, fmt.Sprintf("| %s | %.2f ms | %d |", r.stage, r.p50, r.n))
	}
	return out
}

// TestViewerHop: the change → framebuffer latency of TestViewerBench with
// our RFB client only (no browser), through dvvd's page WebSocket and
// straight to Xvnc, 40 changes; with DVV_HOPTRACE=1, when each stage of
// the hop was reached. Xvnc writes an update to its clients one after
// the other, the latest connected first: a second direct client,
// connected before dvvd, shows what that order costs the clients served
// later (dvvd is connected before the direct clients in TestViewerBench).
func TestViewerHop(t *testing.T) {
	const W, H = 1024, 768
	trace := newHopTrace(t)
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: W, Height: H})
	v.Run(t, "xsetroot", "-solid", "#102030")
	encs := &rfb.Config{Shared: true, Encodings: []int32{rfb.EncCopyRect, rfb.EncTight, rfb.EncZRLE}, JPEGQuality: 7}
	early, err := rfb.Dial(context.Background(), v.Addr, encs)
	if err != nil {
		t.Fatal(err)
	}
	go early.Run()
	defer early.Close()
	d := startDvvd(t)
	c := d.dial(t)
	id := openVNC(t, c, v.Port)
	link, _ := url.Parse(must(t, c, wire.ViewerArgs{LimbID: id}).Viewer.URL)
	link.RawQuery = "fit=0"
	_, goDvv := goViewerConn(t, link.String(), id, encs)
	goDirect, err := rfb.Dial(context.Background(), v.Addr, encs)
	if err != nil {
		t.Fatal(err)
	}
	go goDirect.Run()
	defer goDirect.Close()
	if trace != nil {
		trace.names[goDvv.Framebuffer()], trace.names[goDirect.Framebuffer()] = "client via dvvd", "client direct"
		trace.names[early.Framebuffer()] = "client direct, connected before dvvd"
	}
	time.Sleep(time.Second)
	trace.skip()
	colours := [][3]int{{0xc0, 0x30, 0x30}, {0x30, 0xc0, 0x60}, {0x20, 0x40, 0xd0}, {0xe0, 0xe0, 0x40}}
	var lat [3]durations
	for i := 0; i < 40; i++ {
		col := colours[i%len(colours)]
		var seen [3]chan time.Time
		for k, c := range []*rfb.Client{goDvv, goDirect, early} {
			seen[k] = make(chan time.Time, 1)
			go watchPixel(c.Framebuffer(), 700, 500, col, seen[k])
		}
		t0 := time.Now()
		v.Run(t, "xsetroot", "-solid", fmt.Sprintf("#%02x%02x%02x", col[0], col[1], col[2]))
		for k := range seen {
			select {
			case at := <-seen[k]:
				lat[k] = append(lat[k], at.Sub(t0))
			case <-time.After(10 * time.Second):
				t.Fatalf("colour %v never showed", col)
			}
		}
		time.Sleep(100 * time.Millisecond)
		if trace != nil {
			t.Logf("change %d:%s", i, trace.change(t0, nil))
		}
	}
	report(t, "Change → our RFB client's framebuffer (no browser), 1024x768 Xvnc, full-screen colour change (xsetroot), 40 changes",
		"| path | p50 | p90 |", "| --- | --- | --- |",
		fmt.Sprintf("| through dvvd's page WebSocket | %s | %s |", ms(lat[0].pct(0.5)), ms(lat[0].pct(0.9))),
		fmt.Sprintf("| straight to Xvnc | %s | %s |", ms(lat[1].pct(0.5)), ms(lat[1].pct(0.9))),
		fmt.Sprintf("| straight to Xvnc, connected before dvvd | %s | %s |", ms(lat[2].pct(0.5)), ms(lat[2].pct(0.9))))
	if trace != nil {
		report(t, "Stages of the hop (DVV_HOPTRACE=1)", trace.table()...)
	}
}
