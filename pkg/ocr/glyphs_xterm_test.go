package ocr

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

// xtermScreen is a full-screen xterm (DejaVu Sans Mono 10 pt, as users run
// it) showing text, captured by the X server itself.
type xtermScreen struct {
	img          *image.RGBA
	lines        []string
	cellW, cellH int
	origin       image.Point // the first cell's top-left pixel
}

// showXterm closes prev (if any) and opens an xterm at the top left
// catting text, 200x62 cells with a 2-pixel inner border and no window
// border, and captures the screen once it is drawn.
func showXterm(t *testing.T, x *testbed.VNC, prev *testbed.Proc, text []string) (*xtermScreen, *testbed.Proc) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "screen")
	if err := os.WriteFile(f, []byte(strings.Join(text, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if prev != nil {
		prev.Kill()
	}
	p := x.Background(t, "xterm", "-class", "CellText", "-geometry", "200x62+0+0", "-b", "2", "-bw", "0",
		"-fa", "DejaVu Sans Mono", "-fs", "10", "-e", "sh", "-c", "cat "+f+"; exec sleep 100000")
	x.WaitStill(t, "CellText")
	var w, h int
	out := x.Run(t, "xdotool", "search", "--onlyvisible", "--class", "CellText", "getwindowgeometry", "%@")
	for _, l := range strings.Split(out, "\n") {
		if g, ok := strings.CutPrefix(strings.TrimSpace(l), "Geometry: "); ok {
			fmt.Sscanf(g, "%dx%d", &w, &h)
		}
	}
	if w == 0 || (w-4)%200 != 0 || (h-4)%62 != 0 {
		t.Fatalf("xterm's window is %dx%d, not 200x62 cells and a 2-pixel border:\n%s", w, h, out)
	}
	return &xtermScreen{img: x.Capture(t), lines: text, cellW: (w - 4) / 200, cellH: (h - 4) / 62, origin: image.Pt(2, 2)}, p
}

// drawnAt is the text drawn in the cells r covers, runs of spaces as one.
func (s *xtermScreen) drawnAt(r image.Rectangle) string {
	row := (r.Min.Y + r.Max.Y) / 2
	i := (row - s.origin.Y) / s.cellH
	if i < 0 || i >= len(s.lines) {
		return ""
	}
	lo, hi := (r.Min.X-s.origin.X)/s.cellW, (r.Max.X-s.origin.X+s.cellW-1)/s.cellW
	l := s.lines[i]
	if lo >= len(l) {
		return ""
	}
	return strings.Join(strings.Fields(l[lo:min(hi, len(l))]), " ")
}

// TestGlyphDictReadsRealXterm: an xterm draws `ls -l` lines of file names
// never seen before, the X server's capture is read, and a second screen of
// other such lines is then read mostly from the dictionary. Every line the
// dictionary reads off the second screen is the text xterm drew there (the
// file it cat'ed). The same without cutting touching letters at the cells
// looks up far fewer lines.
func TestGlyphDictReadsRealXterm(t *testing.T) {
	testbed.Need(t, "xterm", "xdotool")
	worker := buildWorker(t)
	eng := &Engine{Worker: worker, Program: "/nonexistent/tesseract"}
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	rng := rand.New(rand.NewPCG(23, 8))
	var screens [2][]string
	for i := range screens {
		for range 60 {
			screens[i] = append(screens[i], lsLine(rng))
		}
	}
	first, p := showXterm(t, x, nil, screens[0])
	second, _ := showXterm(t, x, p, screens[1])
	ctx := context.Background()
	lookedUp := map[bool]int{}
	for _, noCells := range []bool{false, true} {
		buf := fb.New()
		buf.Resize(1920, 1080)
		paint(buf, first.img, image.Point{})
		r := NewReader(eng, buf, "eng")
		r.dict.noCells = noCells
		if _, _, err := r.Read(ctx); err != nil {
			t.Fatal(err)
		}
		paint(buf, second.img, image.Point{})
		for _, b := range segment(second.img, image.Point{}) {
			lines, ok := r.dict.lookup(b)
			if !ok {
				continue
			}
			lookedUp[noCells]++
			if got, want := lines[0].Text(), second.drawnAt(b.r); got != want {
				t.Errorf("cells off %v: read %q at %v where xterm drew %q", noCells, got, b.r, want)
			}
		}
		lines, st, err := r.Read(ctx)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		right, total := wordsReadExactly(lines, screens[1])
		t.Logf("cells off %v: second screen: %d blocks from the dictionary, %d by the engine; %d of %d words read exactly", noCells, st.Looked, st.Blocks, right, total)
		if noCells {
			continue
		}
		if st.Looked <= st.Blocks {
			t.Errorf("second screen: %d blocks read from the dictionary, %d by the engine", st.Looked, st.Blocks)
		}
		if right*100 < total*85 {
			t.Errorf("second screen: %d of %d words read exactly", right, total)
		}
	}
	t.Logf("second screen, lines looked up: %d cut at cells, %d not", lookedUp[false], lookedUp[true])
	if lookedUp[false] <= lookedUp[true] {
		t.Errorf("cutting at cells looked up %d lines, not cutting %d", lookedUp[false], lookedUp[true])
	}
}

// TestGlyphDictReadsRealListing: four xterms in a row of 60 lines of
// `ls -l /usr/lib/x86_64-linux-gnu` (real file names: upper case, `+`,
// `->`), read by one reader as a terminal's successive screens. Before each
// screen from the second on is read, every block the dictionary looks up
// must be what xterm drew there, and from the second screen on most blocks
// are read from the dictionary. The blocks the engine read with and
// without cutting at cells are logged (docs/benchmarks.md compares them).
func TestGlyphDictReadsRealListing(t *testing.T) {
	testbed.Need(t, "xterm", "xdotool")
	out, err := exec.Command("ls", "-l", "/usr/lib/x86_64-linux-gnu").Output()
	if err != nil {
		t.Fatal(err)
	}
	var listing []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && len(l) < 190 && !strings.HasPrefix(l, "total") {
			listing = append(listing, l)
		}
	}
	if len(listing) < 240 {
		t.Fatalf("only %d lines of ls -l /usr/lib/x86_64-linux-gnu: the test needs four screens of it", len(listing))
	}
	worker := buildWorker(t)
	eng := &Engine{Worker: worker, Program: "/nonexistent/tesseract"}
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	var screens []*xtermScreen
	var p *testbed.Proc
	for i := range 4 {
		var s *xtermScreen
		s, p = showXterm(t, x, p, listing[i*60:i*60+60])
		screens = append(screens, s)
	}
	engine := map[bool]int{}
	for _, noCells := range []bool{false, true} {
		buf := fb.New()
		buf.Resize(1920, 1080)
		r := NewReader(eng, buf, "eng")
		r.dict.noCells = noCells
		for i, s := range screens {
			paint(buf, s.img, image.Point{})
			looked := 0
			for _, b := range segment(s.img, image.Point{}) {
				if i == 0 {
					break
				}
				lines, ok := r.dict.lookup(b)
				if !ok {
					continue
				}
				looked++
				if got, want := lines[0].Text(), s.drawnAt(b.r); got != want {
					t.Errorf("cells off %v, screen %d: read %q at %v where xterm drew %q", noCells, i, got, b.r, want)
				}
			}
			_, st, err := r.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("cells off %v, screen %d: %d blocks looked up before reading; the read: %d from the dictionary, %d by the engine", noCells, i, looked, st.Looked, st.Blocks)
			engine[noCells] += st.Blocks
			if i > 0 && !noCells && st.Looked <= st.Blocks {
				t.Errorf("screen %d: %d blocks read from the dictionary, %d by the engine", i, st.Looked, st.Blocks)
			}
		}
		r.Close()
	}
	t.Logf("blocks the engine read over the four screens: %d cutting at cells, %d not", engine[false], engine[true])
}
