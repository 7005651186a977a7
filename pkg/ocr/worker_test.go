package ocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

var built struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildWorker builds cmd/dvvocr with libtesseract, once per test binary.
func buildWorker(t testing.TB) string {
	t.Helper()
	if exec.Command("pkg-config", "--exists", "tesseract").Run() != nil {
		testbed.Unavailable(t, "libtesseract-dev is not installed: run `make testdeps`")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "dvvocr-test"); built.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-tags", "libtesseract", "-o", built.dir+"/", "../../cmd/dvvocr")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build dvvocr: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return filepath.Join(built.dir, WorkerName)
}

// workerEngine reads with the worker only: no program to fall back on.
func workerEngine(t *testing.T) *Engine {
	return &Engine{Worker: buildWorker(t), Program: "/nonexistent/tesseract"}
}

// workerPIDs are the PIDs of this process's children running path.
func workerPIDs(path string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if exe, _ := os.Readlink("/proc/" + e.Name() + "/exe"); exe == path {
			out = append(out, pid)
		}
	}
	return out
}

// cpuTicks is a process's user + system time in clock ticks.
func cpuTicks(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	u, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return u + st
}

// TestWorkerReadsRealDialog: an xmessage drawn by a real X server, read
// back through the worker from the server's own capture; the words lie
// inside the window the X server reports.
func TestWorkerReadsRealDialog(t *testing.T) {
	eng := workerEngine(t)
	testbed.Need(t, "xmessage", "xdotool")
	d := testbed.StartXvfb(t, 1024, 600)
	d.Run(t, "xsetroot", "-solid", "#2e4a62")
	d.Background(t, "xmessage", "-geometry", "+300+200", "-buttons", "Keep,Discard", "Report 42 saved to the shared folder")
	d.WaitStill(t, "xmessage")
	var win image.Rectangle
	geo := d.Run(t, "xdotool", "search", "--onlyvisible", "--class", "xmessage", "getwindowgeometry", "--shell")
	v := map[string]int{}
	for _, line := range strings.Split(geo, "\n") {
		k, s, _ := strings.Cut(strings.TrimSpace(line), "=")
		v[k], _ = strconv.Atoi(s)
	}
	win = image.Rect(v["X"], v["Y"], v["X"]+v["WIDTH"], v["Y"]+v["HEIGHT"])

	b := fb.New()
	b.Resize(1024, 600)
	paint(b, d.Capture(t), image.Point{})
	r := NewReader(eng, b, "eng")
	defer r.Close()
	lines, st, err := r.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Report 42 saved", "shared folder", "Keep", "Discard"} {
		m := Find(lines, q)
		if len(m) != 1 || !m[0].Box.In(win) {
			t.Errorf("%q: %+v, window %v; read %v", q, m, win, lines)
		}
	}
	if st.Runs < 1 || len(workerPIDs(eng.Worker)) == 0 {
		t.Fatalf("no worker ran: %+v", st)
	}
}

// bigPicture is a canvas of many lines of text: a read that takes the
// worker a while. Each copy of the line carries its own pattern of dots
// after it, so no two blocks are equal (equal ones are read once).
func bigPicture(t *testing.T) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 1400, 900))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	line := label(t, "drwxr-xr-x 2 root root 4096 Jun 24 2025 libfontconfig1-dev and more words", 13)
	k := 0
	for y := 0; y+line.Bounds().Dy() <= 900; y += line.Bounds().Dy() + 4 {
		for x := 0; x+line.Bounds().Dx()+6 <= 1400; x += line.Bounds().Dx() + 40 {
			for row := 0; row < line.Bounds().Dy(); row++ {
				copy(img.Pix[(y+row)*img.Stride+x*4:], line.Pix[row*line.Stride:row*line.Stride+line.Bounds().Dx()*4])
			}
			k++
			for bit := 0; bit < 7; bit++ {
				if k&(1<<bit) != 0 {
					dot := (y+2*bit)*img.Stride + (x+line.Bounds().Dx()+3)*4
					copy(img.Pix[dot:], []byte{0, 0, 0, 0xff, 0, 0, 0, 0xff})
				}
			}
		}
	}
	return img
}

// TestWorkerKilledMidReadIsRestarted: the worker is killed by its PID
// while it reads; the read answers a WorkerError naming it, and the next
// read starts a new worker and reads the text.
func TestWorkerKilledMidReadIsRestarted(t *testing.T) {
	eng := workerEngine(t)
	small := label(t, "Restarted", 20)
	if _, err := eng.Recognize(context.Background(), small, image.Point{}, "eng"); err != nil {
		t.Fatal(err) // a worker is started and idle
	}
	pids := workerPIDs(eng.Worker)
	if len(pids) == 0 {
		t.Fatal("no worker running after a read")
	}
	big := bigPicture(t)
	done := make(chan error, 1)
	go func() {
		_, err := eng.Recognize(context.Background(), big, image.Point{}, "eng")
		done <- err
	}()
	// Mid-read: one of the workers is using CPU on the big picture.
	before := map[int]int{}
	for _, p := range pids {
		before[p] = cpuTicks(p)
	}
	victim := 0
	testbed.Eventually(t, 20*time.Second, "the worker busy reading", func() bool {
		for _, p := range workerPIDs(eng.Worker) {
			if b, ok := before[p]; ok && cpuTicks(p) >= b+3 {
				victim = p
				return true
			}
		}
		return false
	})
	syscall.Kill(victim, syscall.SIGKILL)
	err := <-done
	var we *WorkerError
	if !errors.As(err, &we) || we.PID != victim || !strings.Contains(err.Error(), "retry") {
		t.Fatalf("the read of a killed worker answered %v", err)
	}
	lines, err := eng.Recognize(context.Background(), small, image.Point{}, "eng")
	if err != nil || len(Find(lines, "Restarted")) != 1 {
		t.Fatalf("after the restart: %v %v", lines, err)
	}
	for _, p := range workerPIDs(eng.Worker) {
		if p == victim {
			t.Fatal("the killed worker is still listed")
		}
	}
}

// fakeWorker writes a worker program: a shell script that says hello and
// then does what body says.
func fakeWorker(t *testing.T, body string) string {
	path := filepath.Join(t.TempDir(), "dvvocr")
	script := "#!/bin/sh\nprintf 'DV\\001H\\000\\000\\000\\000'\n" + body + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHungWorkerIsKilled: a worker that never answers is killed after its
// time and the read answers a WorkerError; so is one that answers garbage.
func TestHungOrGarbageWorkerIsKilled(t *testing.T) {
	img := label(t, "Hello", 20)
	for name, body := range map[string]string{
		"hangs":   "exec sleep 1000",
		"garbage": "head -c 64 /dev/urandom; exec sleep 1000",
		"crashes": "kill -SEGV $$",
	} {
		path := fakeWorker(t, body)
		poolFor(path).hangAfter = 700 * time.Millisecond
		eng := &Engine{Worker: path, Program: "/nonexistent/tesseract"}
		for i := 0; i < 2; i++ { // and again: a new worker is started
			_, err := eng.Recognize(context.Background(), img, image.Point{}, "eng")
			var we *WorkerError
			if !errors.As(err, &we) {
				t.Fatalf("%s: read %d answered %v", name, i, err)
			}
			t.Logf("%s: %v", name, err)
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", we.PID)); err == nil {
				t.Fatalf("%s: worker %d left running", name, we.PID)
			}
		}
	}
}

// TestWorkerThatCannotStartFallsBack: a worker that dies before its hello
// (a missing libtesseract) is left alone and the program reads instead.
func TestWorkerThatCannotStartFallsBack(t *testing.T) {
	testbed.Need(t, "tesseract")
	path := filepath.Join(t.TempDir(), "dvvocr")
	os.WriteFile(path, []byte("#!/bin/sh\necho 'error while loading shared libraries: libtesseract.so.5' >&2\nexit 127\n"), 0o755)
	eng := &Engine{Worker: path, Program: "tesseract"}
	lines, err := eng.Recognize(context.Background(), label(t, "Settings", 20), image.Point{}, "eng")
	if err != nil || len(Find(lines, "Settings")) != 1 {
		t.Fatalf("%v %v", lines, err)
	}
	if eng.workerUsable() {
		t.Fatal("a worker that could not start is still used")
	}
	eng.Program = "/nonexistent/tesseract"
	err = eng.Check()
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "libtesseract.so.5") || !strings.Contains(err.Error(), "apt install") {
		t.Fatalf("without either: %v", err)
	}
}

// TestWorkerLanguageMissing: a language without data is UNSUPPORTED-worthy
// and the worker stays (the next read uses the same process).
func TestWorkerLanguageMissing(t *testing.T) {
	eng := workerEngine(t)
	img := label(t, "hello", 20)
	if _, err := eng.Recognize(context.Background(), img, image.Point{}, "eng"); err != nil {
		t.Fatal(err)
	}
	before := workerPIDs(eng.Worker)
	_, err := eng.Recognize(context.Background(), img, image.Point{}, "zzz")
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "tesseract-ocr-zzz") {
		t.Fatalf("err %v", err)
	}
	if after := workerPIDs(eng.Worker); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("workers %v became %v", before, after)
	}
}

// TestIdleWorkerIsStopped: a worker unused for its idle time is stopped,
// and the next read starts another.
func TestIdleWorkerIsStopped(t *testing.T) {
	built, err := os.ReadFile(buildWorker(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), WorkerName) // a pool of its own
	if err := os.WriteFile(path, built, 0o755); err != nil {
		t.Fatal(err)
	}
	p := poolFor(path)
	p.mu.Lock()
	p.idleAfter = 300 * time.Millisecond
	p.mu.Unlock()
	eng := &Engine{Worker: path, Program: "/nonexistent/tesseract"}
	img := label(t, "Idle", 20)
	// The read can only succeed through the worker: there is no program.
	if _, err := eng.Recognize(context.Background(), img, image.Point{}, "eng"); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 10*time.Second, "the idle worker stopped", func() bool { return len(workerPIDs(path)) == 0 })
	lines, err := eng.Recognize(context.Background(), img, image.Point{}, "eng")
	if err != nil || len(Find(lines, "Idle")) != 1 {
		t.Fatalf("after the stop: %v %v", lines, err)
	}
}

// TestWorkerReportsCharacters: the worker's answer carries each word's
// characters, which spell it and lie within its box on the screen; the
// tesseract program's answer carries none, and words alone are read.
func TestWorkerReportsCharacters(t *testing.T) {
	worker := buildWorker(t)
	testbed.Need(t, "tesseract")
	buf := fb.New()
	buf.Resize(640, 80)
	fill(buf, image.Rect(0, 0, 640, 80), 0xff)
	paint(buf, labelIn(t, "DejaVu-Sans-Mono", "libgdk_pixbuf-2.0.so.0 4200 saved", 16), image.Pt(20, 20))
	img, _ := buf.Snapshot(image.Rect(0, 0, 640, 80))
	c := &canvas{scale: DefaultScale}
	for _, b := range segment(img, image.Point{}) {
		c.add(b)
	}
	pix, w, h := c.draw()
	ctx := context.Background()
	tsv, err := poolFor(worker).recognize(ctx, pix, w, h, "eng", psmColumn)
	if err != nil {
		t.Fatal(err)
	}
	words, spelled := 0, 0
	for _, lines := range c.mapBack(parseTSV(tsv)) {
		for _, l := range lines {
			for _, wd := range l.Words {
				words++
				if wd.chars == nil {
					t.Errorf("%q came without its characters", wd.Text)
					continue
				}
				spelled++
				for _, ch := range wd.chars {
					if !ch.box.In(wd.Box.Inset(-2)) || ch.conf <= 0 {
						t.Errorf("%q: character %+v outside %v", wd.Text, ch, wd.Box)
					}
				}
			}
		}
	}
	if words < 3 || spelled != words {
		t.Fatalf("%d words, %d with characters: %s", words, spelled, tsv)
	}
	out, err := (&Engine{Program: "tesseract"}).run(ctx, pgm(pix, w, h), "eng", psmColumn)
	if err != nil {
		t.Fatal(err)
	}
	for _, lines := range c.mapBack(parseTSV(out)) {
		for _, l := range lines {
			for _, wd := range l.Words {
				if wd.chars != nil {
					t.Fatalf("the program's %q came with characters", wd.Text)
				}
			}
		}
	}
}
