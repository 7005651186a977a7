package e2e

import (
	"bytes"
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/wire"
)

// lockedLog is dvvd's log, written by its goroutines and read by the test.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// since returns what was logged after offset, and the new offset.
func (l *lockedLog) since(off int) (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b.Bytes()[off:]), l.b.Len()
}

var textReadCounts = regexp.MustCompile(`msg="text read".* blocks=(\d+) looked=(\d+)`)

// TestFindOnNewTextInSeenFont: three xterms of random words on a 1920x1080
// Xvnc desktop are read once; then the same xterms clear and print other
// random words, and a fourth prints a target word. The second screen is
// read mostly from the glyph dictionary (lines looked up against lines the
// engine read, as dvvd counts them), find answers the target once inside
// the window the X server placed it in (xdotool), and nothing for a word
// drawn nowhere.
func TestFindOnNewTextInSeenFont(t *testing.T) {
	testbed.Need(t, "tesseract", "xterm", "xdotool")
	worker := buildOCRWorker(t)
	t.Setenv("DVV_OCR_WORKER", worker)
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	x.Run(t, "xsetroot", "-solid", "#2e4a62")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	word := func(syllables int) string { return syllableWord(rng, syllables) }
	screen := func() string {
		var sb strings.Builder
		for n := 0; n < 28; n++ {
			for k := 0; k < 9; k++ {
				sb.WriteString(word(1+rng.IntN(4)) + " ")
			}
			sb.WriteString("\n")
		}
		return sb.String()
	}
	target, absent := word(5), word(5)
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	next := filepath.Join(dir, "next")
	waitNext := "while [ ! -e " + next + " ]; do sleep 0.1; done; clear; "
	for i, geo := range []string{"100x30+0+0", "100x30+960+0", "150x28+0+560"} {
		first, second := write(fmt.Sprintf("first%d", i), screen()), write(fmt.Sprintf("second%d", i), screen())
		x.Background(t, "xterm", "-geometry", geo, "-fa", "DejaVu Sans Mono", "-fs", "11", "-e", "sh", "-c",
			"cat "+first+"; "+waitNext+"cat "+second+"; exec sleep 100000")
	}
	x.Background(t, "xterm", "-title", "dvvtarget", "-geometry", "30x2+1450+700", "-fa", "DejaVu Sans Mono", "-fs", "11", "-e", "sh", "-c",
		waitNext+"printf '   "+target+"\\n'; exec sleep 100000")
	x.WaitStill(t, "xterm")
	win := xwindow(t, x.Display, "dvvtarget")

	log := &lockedLog{}
	c := dial(t, startDaemonWith(t, daemon.Services{}, log), "find-seen-font")
	id := openVNC(t, c, "127.0.0.1", x.Port)
	tgt := wire.Target{LimbID: id}
	if f := must(t, c, wire.FindArgs{Target: tgt}).Find; len(f.Lines) < 80 {
		t.Fatalf("the first screen read as %d lines", len(f.Lines))
	}
	logged, off := log.since(0)
	// Even the first screen: the engine reads the lines that teach the
	// font, and the dictionary the rest.
	if engine, looked := readCounts(logged); looked <= engine {
		t.Fatalf("the first screen was read mostly by the engine: %d blocks looked up, %d read by it", looked, engine)
	} else {
		t.Logf("first screen: %d blocks read from the glyph dictionary, %d by the engine", looked, engine)
	}

	write("next", "")
	x.WaitStill(t, "xterm")
	f := must(t, c, wire.FindArgs{Target: tgt, Text: strp(target)}).Find
	if len(f.Matches) != 1 {
		t.Fatalf("find %q: %d matches %+v", target, len(f.Matches), f.Matches)
	}
	m := f.Matches[0]
	if box := image.Rect(m.Box.X, m.Box.Y, m.Box.X+m.Box.W, m.Box.Y+m.Box.H); !box.In(win) {
		t.Fatalf("%q read at %v; the X server placed its window at %v", target, box, win)
	}
	if f := must(t, c, wire.FindArgs{Target: tgt, Text: strp(absent)}).Find; len(f.Matches) != 0 {
		t.Fatalf("%q is drawn nowhere but was found: %+v", absent, f.Matches)
	}
	logged, _ = log.since(off)
	engine, looked := readCounts(logged)
	t.Logf("second screen: %d blocks read from the glyph dictionary, %d by the engine", looked, engine)
	if looked <= engine {
		t.Fatalf("the second screen, in the font of the first, was read mostly by the engine: %d blocks looked up, %d read by it", looked, engine)
	}
}

// readCounts adds up the blocks the engine read and those looked up in
// the glyph dictionary, over dvvd's "text read" log lines.
func readCounts(logged string) (engine, looked int) {
	for _, m := range textReadCounts.FindAllStringSubmatch(logged, -1) {
		b, _ := strconv.Atoi(m[1])
		l, _ := strconv.Atoi(m[2])
		engine, looked = engine+b, looked+l
	}
	return engine, looked
}
