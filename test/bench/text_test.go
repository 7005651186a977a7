//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTextWait measures a dialog appearing → `wait until: text` settling,
// beside `wait until: screen-changed` started at the same moment (when the
// first pixels of the dialog reached the mirror), at two desktop sizes.
func TestTextWait(t *testing.T) {
	testbed.Need(t, "tesseract", "xmessage")
	ensureWorker(t) // dvvd reads with dvvocr, as installed
	for _, size := range [][2]int{{1024, 768}, {1920, 1080}} {
		x := testbed.StartXvnc(t, testbed.XvncOptions{Width: size[0], Height: size[1]})
		desktopScene(t, x.Display)
		d := startDvvd(t)
		c := d.dial(t)
		c2 := d.dial(t)
		id := openVNC(t, c, x.Port)
		ops := watchOps(t, d, id)
		t0 := time.Now()
		must(t, c, wire.FindArgs{Target: wire.Target{LimbID: id}, Text: strp("nothing")})
		first := time.Since(t0)
		const n = 12
		var text, changed, own durations
		cpu0 := d.cpuTicksWithChildren()
		for i := 0; i < n; i++ {
			msg := fmt.Sprintf("Report %d saved to the shared folder", i)
			want := fmt.Sprintf("Report %d saved", i)
			to := 20000
			ops.mark(t)
			textDone := make(chan time.Time, 1)
			changeDone := make(chan time.Time, 1)
			go func() {
				must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: &want, TimeoutMs: &to})
				textDone <- time.Now()
			}()
			go func() {
				must(t, c2, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-changed", TimeoutMs: &to})
				changeDone <- time.Now()
			}()
			ops.started(t, wire.OpWait, 2) // both waits are in dvvd before the dialog appears
			start := time.Now()
			p := testbed.Start(t, "xmessage", x.Command("xmessage", "-geometry", "+300+250", "-buttons", "OK", msg))
			tText, tChange := <-textDone, <-changeDone
			text = append(text, tText.Sub(start))
			changed = append(changed, tChange.Sub(start))
			own = append(own, tText.Sub(tChange))
			p.Kill()
			gone := msg
			must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text-gone", Text: &gone, TimeoutMs: &to})
		}
		cpu := float64(d.cpuTicksWithChildren()-cpu0) * 10 / (2 * n) // ms per read: each dialog is read twice (appear, go)
		floorWall, floorCPU := tesseractFloor(t, x)
		report(t, fmt.Sprintf("wait until text, dialog appearing on a %dx%d Xvnc desktop (%d dialogs)", size[0], size[1], n),
			"| what | p50 | p90 |", "| --- | --- | --- |",
			fmt.Sprintf("| xmessage started → `wait until: text` answered | %s | %s |", ms(text.pct(0.5)), ms(text.pct(0.9))),
			fmt.Sprintf("| xmessage started → `wait until: screen-changed` answered (first dialog pixels in the mirror) | %s | %s |", ms(changed.pct(0.5)), ms(changed.pct(0.9))),
			fmt.Sprintf("| first pixels → text settled (dvvd's recognition) | %s | %s |", ms(own.pct(0.5)), ms(own.pct(0.9))),
			fmt.Sprintf("| anchor: one `tesseract` run on a crop of the dialog from `import -window root` | %s | %s |", ms(floorWall.pct(0.5)), ms(floorWall.pct(0.9))),
			fmt.Sprintf("\nCPU (dvvd and its tesseract runs, user + system) per dialog read: %.0f ms; the anchor run's CPU: %s (p50). First read of the whole frame (once per limb and language): %s.", cpu, ms(floorCPU.pct(0.5)), ms(first)))
	}
}

// TestFindCached: find on an unchanged screen answers from the cache.
func TestFindCached(t *testing.T) {
	testbed.Need(t, "tesseract")
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	desktopScene(t, x.Display)
	d := startDvvd(t)
	c := d.dial(t)
	id := openVNC(t, c, x.Port)
	quiet, to := 1000, 25000
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: &quiet, TimeoutMs: &to})
	must(t, c, wire.FindArgs{Target: wire.Target{LimbID: id}, Text: strp("services")})
	var samples durations
	for len(samples) < 500 {
		t0 := time.Now()
		r := must(t, c, wire.FindArgs{Target: wire.Target{LimbID: id}, Text: strp("services")})
		if r.Find.Cached { // a repaint (cursor, late output) is a recognition, not this figure
			samples = append(samples, time.Since(t0))
		}
	}
	ping := timeN(500, func() { must(t, c, wire.PingArgs{}) })
	report(t, "find on an unchanged 1920x1080 screen (500 calls through pkg/client)",
		"| what | p50 | p99 |", "| --- | --- | --- |",
		fmt.Sprintf("| `ping` (the client's floor) | %s | %s |", us(ping.pct(0.5)), us(ping.pct(0.99))),
		fmt.Sprintf("| `find` \"services\", cached | %s | %s |", us(samples.pct(0.5)), us(samples.pct(0.99))))
}

// accuracyScreens are the fixed screens of the accuracy measurement: what
// each draws and the text it shows, line by line.
var accuracyScreens = []struct {
	name  string
	draw  func(t *testing.T, d *testbed.Display)
	truth []string
}{
	{"xterm, DejaVu Sans Mono 10", func(t *testing.T, d *testbed.Display) {
		d.Background(t, "xterm", "-geometry", "70x8+40+40", "-fa", "DejaVu Sans Mono", "-fs", "10", "-e", "sh", "-c",
			"printf 'Quarterly revenue rose by 12 percent\\nbackup completed at 04:15 without errors\\nuser alice logged in from 10.0.0.7\\n'; exec sleep 100000")
	}, []string{"Quarterly revenue rose by 12 percent", "backup completed at 04:15 without errors", "user alice logged in from 10.0.0.7"}},
	{"xterm, default bitmap font", func(t *testing.T, d *testbed.Display) {
		d.Background(t, "xterm", "-geometry", "70x8+40+300", "-e", "sh", "-c",
			"printf 'Deploy finished: 42 services restarted\\nwarning: disk usage above 80 percent\\n'; exec sleep 100000")
	}, []string{"Deploy finished: 42 services restarted", "warning: disk usage above 80 percent"}},
	{"xmessage dialog", func(t *testing.T, d *testbed.Display) {
		testbed.Start(t, "xmessage", d.Command("xmessage", "-geometry", "+560+120", "-buttons", "Save,Discard", "Save changes to the document before closing?"))
	}, []string{"Save changes to the document before closing?", "Save Discard"}},
}

// TestOCRAccuracy compares dvvd's reading of the screens (the lines find
// returns) with tesseract run on the whole `import -window root` capture,
// as character error rates against the known text.
func TestOCRAccuracy(t *testing.T) {
	testbed.Need(t, "tesseract", "xmessage", "import")
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	x.Run(t, "xsetroot", "-solid", "#2e4a62")
	var truth []string
	for _, s := range accuracyScreens {
		s.draw(t, x.Display)
		truth = append(truth, s.truth...)
	}
	x.WaitStill(t, "xterm", "xmessage") // every window drawn
	d := startDvvd(t)
	c := d.dial(t)
	id := openVNC(t, c, x.Port)
	r := must(t, c, wire.FindArgs{Target: wire.Target{LimbID: id}})
	var ours []string
	for _, l := range r.Find.Lines {
		ours = append(ours, l.Text)
	}
	shot := filepath.Join(t.TempDir(), "root.png")
	out, err := x.Command("import", "-window", "root", shot).CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	t0 := time.Now()
	anchorOut, err := exec.Command("tesseract", shot, "-", "-l", "eng").Output()
	anchorTime := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	anchor := strings.Split(string(anchorOut), "\n")
	lines := []string{"| screen | dvvd (find: lines) CER | tesseract on the whole capture CER |", "| --- | --- | --- |"}
	var oe, ae, total int
	k := 0
	for _, s := range accuracyScreens {
		var se, sa, sn int
		for range s.truth {
			want := truth[k]
			k++
			e1, e2 := bestDistance(want, ours), bestDistance(want, anchor)
			se, sa, sn = se+e1, sa+e2, sn+len([]rune(want))
		}
		oe, ae, total = oe+se, ae+sa, total+sn
		lines = append(lines, fmt.Sprintf("| %s | %.1f %% | %.1f %% |", s.name, 100*float64(se)/float64(sn), 100*float64(sa)/float64(sn)))
	}
	lines = append(lines, fmt.Sprintf("| **all** (%d characters) | **%.1f %%** | **%.1f %%** |", total, 100*float64(oe)/float64(total), 100*float64(ae)/float64(total)),
		fmt.Sprintf("\nWhole-capture tesseract run: %s.", ms(anchorTime)))
	if os.Getenv("DVV_BENCH_VERBOSE") != "" {
		lines = append(lines, "\ndvvd read:\n\n    "+strings.Join(ours, "\n    "), "\nanchor read:\n\n    "+strings.Join(anchor, "\n    "))
	}
	report(t, "recognition accuracy on fixed screens (character error rate, lower is better)", lines...)
}

// bestDistance is the edit distance from want to the closest line read (a
// line that was not read at all costs every character).
func bestDistance(want string, read []string) int {
	best := len([]rune(want))
	for _, r := range read {
		best = min(best, levenshtein([]rune(want), []rune(strings.TrimSpace(r))))
	}
	return best
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// cpuTicksWithChildren is dvvd's CPU time including the tesseract runs it
// waited for, in clock ticks (10 ms).
func (d *dvvd) cpuTicksWithChildren() int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", d.proc.Cmd.Process.Pid))
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	n := 0
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		v, _ := strconv.Atoi(f[i])
		n += v
	}
	return n
}

// tesseractFloor shows the dialog once more and times the tesseract
// program alone on a crop of it, as captured by the X server: the floor of
// any design that runs the program, measured in the same run.
func tesseractFloor(t *testing.T, x *testbed.VNC) (wall, cpu durations) {
	p := testbed.Start(t, "xmessage", x.Command("xmessage", "-geometry", "+300+250", "-buttons", "OK", "Report 99 saved to the shared folder"))
	defer p.Kill()
	dir := t.TempDir()
	crop := filepath.Join(dir, "dialog.png")
	testbed.Eventually(t, 20*time.Second, "the dialog captured", func() bool {
		out, err := x.Command("sh", "-c", "import -window root png:- | convert png:- -crop 420x90+295+245 +repage "+crop).CombinedOutput()
		if err != nil {
			t.Logf("capture: %v %s", err, out)
			return false
		}
		txt, _ := exec.Command("tesseract", crop, "-", "--oem", "1", "--psm", "4").Output()
		return strings.Contains(string(txt), "saved")
	})
	for i := 0; i < 8; i++ {
		cmd := exec.Command("tesseract", crop, "-", "--oem", "1", "--psm", "4", "tsv")
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		wall = append(wall, time.Since(t0))
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	return wall, cpu
}
