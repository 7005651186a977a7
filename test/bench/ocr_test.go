//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

var workerBuild struct {
	once sync.Once
	err  error
}

// ensureWorker builds dvvocr next to the benchmark's dvvd, which finds it
// there (as the packages install both in /usr/bin).
func ensureWorker(t *testing.T) {
	t.Helper()
	if exec.Command("pkg-config", "--exists", "tesseract").Run() != nil {
		testbed.Unavailable(t, "libtesseract-dev is not installed: run `make testdeps`")
	}
	workerBuild.once.Do(func() {
		cmd := exec.Command("go", "build", "-tags", "libtesseract", "-o", binDir+"/", "../../cmd/dvvocr")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			workerBuild.err = fmt.Errorf("build dvvocr: %v\n%s", err, out)
		}
	})
	if workerBuild.err != nil {
		t.Fatal(workerBuild.err)
	}
}

func startDvvdEnv(t *testing.T, env ...string) *dvvd {
	t.Helper()
	home := t.TempDir()
	id := fmt.Sprintf("bench-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	cmd := exec.Command(filepath.Join(binDir, "dvvd"), "--id", id, "--no-discovery", "--log-level", "warn")
	cmd.Env = append(append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config"), env...)
	p := testbed.Start(t, "dvvd", cmd)
	sock := client.SocketPath(id)
	testbed.WaitFile(t, sock, 10*time.Second)
	return &dvvd{proc: p, socket: sock}
}

// cpuAll is dvvd's CPU time with every child's, running (its workers) or
// exited (tesseract runs), in clock ticks (10 ms).
func (d *dvvd) cpuAll() int {
	n := d.cpuTicksWithChildren()
	pid := strconv.Itoa(d.proc.Cmd.Process.Pid)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 || f[1] != pid {
			continue
		}
		u, _ := strconv.Atoi(f[11])
		k, _ := strconv.Atoi(f[12])
		n += u + k
	}
	return n
}

// TestOCRWorker measures reading text on a 1920x1080 Xvnc desktop with
// dvvocr, the resident worker, and with the tesseract program (dvvd with
// DVV_OCR_WORKER=off), in one run, beside the bare program on the same
// pictures: the first read of a limb, find after the whole desktop was
// repainted as it was, find after a full screen of new text, and a dialog
// appearing (wait until text).
func TestOCRWorker(t *testing.T) {
	testbed.Need(t, "tesseract", "xmessage", "import", "xterm")
	ensureWorker(t)
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	desktopScene(t, x.Display)
	modes := []struct {
		name string
		env  []string
	}{{"dvvocr (resident worker)", nil}, {"`tesseract` program", []string{"DVV_OCR_WORKER=off"}}}
	rows := []string{"| what | " + modes[0].name + " p50 | p90 | CPU/read | " + modes[1].name + " p50 | p90 | CPU/read |", "| --- | --- | --- | --- | --- | --- | --- |"}
	type figure struct {
		wall durations
		cpu  int // ticks over all samples
	}
	results := map[string][2]figure{}
	order := []string{}
	add := func(row string, mode int, f figure) {
		if _, ok := results[row]; !ok {
			order = append(order, row)
		}
		r := results[row]
		r[mode] = f
		results[row] = r
	}
	to, quiet := 60000, 300
	for mi, mode := range modes {
		d := startDvvdEnv(t, mode.env...)
		c := d.dial(t)
		c2 := d.dial(t)
		id := openVNC(t, c, x.Port)
		ops := watchOps(t, d, id)
		tgt := wire.Target{LimbID: id}

		c0 := d.cpuAll()
		t0 := time.Now()
		must(t, c, wire.FindArgs{Target: tgt, Text: strp("tcp")})
		add("first read of the limb (whole 1920x1080 frame, two xterms of text)", mi, figure{durations{time.Since(t0)}, d.cpuAll() - c0})

		// The whole desktop repainted with what it showed before: a blank
		// full-screen window is shown (and read), then closed. (xrefresh
		// would not do: Xvnc sends only pixels that differ.)
		var f figure
		for i := 0; i < 6; i++ {
			var p *testbed.Proc
			changed(t, ops, c2, tgt, func() {
				p = x.Background(t, "xterm", "-class", "Cover", "-geometry", "240x80+0+0", "-e", "sleep", "100000")
			})
			x.WaitStill(t, "Cover")
			must(t, c, wire.WaitArgs{Target: tgt, Until: "screen-stable", QuietMs: &quiet, TimeoutMs: &to})
			must(t, c, wire.FindArgs{Target: tgt, Text: strp("tcp")})
			changed(t, ops, c2, tgt, func() { p.Kill() })
			must(t, c, wire.WaitArgs{Target: tgt, Until: "screen-stable", QuietMs: &quiet, TimeoutMs: &to})
			c0, t0 = d.cpuAll(), time.Now()
			r := must(t, c, wire.FindArgs{Target: tgt, Text: strp("tcp")})
			if r.Find.Cached || len(r.Find.Matches) == 0 {
				t.Fatalf("find after the desktop was repainted: cached %v, %d matches", r.Find.Cached, len(r.Find.Matches))
			}
			f.wall = append(f.wall, time.Since(t0))
			f.cpu += d.cpuAll() - c0
		}
		add("`find` after a full-screen window closed (the desktop behind it repainted as it was)", mi, f)

		// A full screen of text never seen before.
		f = figure{}
		for i := 0; i < 4; i++ {
			cmd := fmt.Sprintf("ls -l /usr/lib/x86_64-linux-gnu | sed -n '%d,%dp'; exec sleep 100000", 1+i*60, 60+i*60)
			var p *testbed.Proc
			changed(t, ops, c2, tgt, func() {
				p = x.Background(t, "xterm", "-class", "NewText", "-geometry", "200x62+0+0", "-fa", "DejaVu Sans Mono", "-fs", "10", "-e", "sh", "-c", cmd)
			})
			x.WaitStill(t, "NewText")
			must(t, c, wire.WaitArgs{Target: tgt, Until: "screen-stable", QuietMs: &quiet, TimeoutMs: &to})
			c0, t0 = d.cpuAll(), time.Now()
			must(t, c, wire.FindArgs{Target: tgt, Text: strp("lib")})
			f.wall = append(f.wall, time.Since(t0))
			f.cpu += d.cpuAll() - c0
			changed(t, ops, c2, tgt, func() { p.Kill() })
			must(t, c, wire.WaitArgs{Target: tgt, Until: "screen-stable", QuietMs: &quiet, TimeoutMs: &to})
			must(t, c, wire.FindArgs{Target: tgt, Text: strp("tcp")})
		}
		add("`find` after a full-screen xterm of new text (200x62, 60 lines of `ls -l`)", mi, f)

		// A dialog appearing: first pixels in the mirror → wait until text.
		f = figure{}
		for i := 0; i < 10; i++ {
			msg := fmt.Sprintf("Report %d saved to the shared folder", i)
			want := fmt.Sprintf("Report %d saved", i)
			ops.mark(t)
			textDone := make(chan time.Time, 1)
			changeDone := make(chan time.Time, 1)
			go func() {
				must(t, c, wire.WaitArgs{Target: tgt, Until: "text", Text: &want, TimeoutMs: &to})
				textDone <- time.Now()
			}()
			go func() {
				must(t, c2, wire.WaitArgs{Target: tgt, Until: "screen-changed", TimeoutMs: &to})
				changeDone <- time.Now()
			}()
			ops.started(t, wire.OpWait, 2)
			c0 = d.cpuAll()
			p := testbed.Start(t, "xmessage", x.Command("xmessage", "-geometry", "+300+250", "-buttons", "OK", msg))
			tText, tChange := <-textDone, <-changeDone
			f.wall = append(f.wall, tText.Sub(tChange))
			f.cpu += d.cpuAll() - c0
			p.Kill()
			gone := msg
			must(t, c, wire.WaitArgs{Target: tgt, Until: "text-gone", Text: &gone, TimeoutMs: &to})
		}
		add("dialog drawn (first pixels in the mirror) → `wait until: text` settled", mi, f)
		d.proc.Kill()
	}
	for _, row := range order {
		r := results[row]
		line := "| " + row + " |"
		for _, f := range r {
			line += fmt.Sprintf(" %s | %s | %.0f ms |", ms(f.wall.pct(0.5)), ms(f.wall.pct(0.9)), float64(f.cpu)*10/float64(len(f.wall)))
		}
		rows = append(rows, line)
	}

	// The bare program on the same pictures, as the X server captured them.
	shot := filepath.Join(t.TempDir(), "root.png")
	if out, err := x.Command("import", "-window", "root", shot).CombinedOutput(); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	var bare durations
	var bareCPU time.Duration
	for i := 0; i < 3; i++ {
		cmd := exec.Command("tesseract", shot, "-", "--oem", "1", "--psm", "4", "tsv")
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		bare = append(bare, time.Since(t0))
		bareCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	floorWall, floorCPU := tesseractFloor(t, x)
	rows = append(rows,
		fmt.Sprintf("| bare `tesseract root.png - --oem 1 --psm 4 tsv` on the desktop's `import -window root` capture | %s | %s | %.0f ms | | | |", ms(bare.pct(0.5)), ms(bare.pct(0.9)), float64(bareCPU.Milliseconds())/3),
		fmt.Sprintf("| bare `tesseract dialog.png - --oem 1 --psm 4 tsv` on a crop of the dialog | %s | %s | %s | | | |", ms(floorWall.pct(0.5)), ms(floorWall.pct(0.9)), ms(floorCPU.pct(0.5))))
	load, _ := os.ReadFile("/proc/loadavg")
	rows = append(rows, fmt.Sprintf("\nLoad average at the end: %s.", strings.Join(strings.Fields(string(load))[:3], " ")))
	report(t, "reading text with the resident worker and with the program (1920x1080 Xvnc, same run)", rows...)
}

// changed runs act and returns once the mirror has changed after it.
func changed(t *testing.T, ops *opWatch, c *client.Client, tgt wire.Target, act func()) {
	ops.mark(t)
	done := make(chan struct{})
	go func() {
		to := 60000
		must(t, c, wire.WaitArgs{Target: tgt, Until: "screen-changed", TimeoutMs: &to})
		close(done)
	}()
	ops.started(t, wire.OpWait, 1)
	act()
	<-done
}
