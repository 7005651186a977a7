package e2e

import (
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestFindOnNewText: a 1920x1080 Xvnc desktop full of words never seen
// before (three xterms of random words) and one more xterm holding a
// target word. find answers the target once, inside the window the X
// server placed it in, and answers nothing for a word drawn nowhere; the
// whole text read afterwards still holds the target once. Read with
// dvvocr and with the tesseract program, each by a fresh dvvd.
func TestFindOnNewText(t *testing.T) {
	testbed.Need(t, "tesseract", "xterm", "xdotool")
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	x.Run(t, "xsetroot", "-solid", "#2e4a62")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	word := func(syllables int) string { return syllableWord(rng, syllables) }
	target, absent := word(5), word(5)
	dir := t.TempDir()
	for i, geo := range []string{"100x30+0+0", "100x30+960+0", "150x28+0+560"} {
		var sb strings.Builder
		for n := 0; n < 28; n++ {
			for k := 0; k < 9; k++ {
				// At most 8 letters: never holding the 10-letter target or absent word.
				sb.WriteString(word(1+rng.IntN(4)) + " ")
			}
			sb.WriteString("\n")
		}
		f := filepath.Join(dir, fmt.Sprintf("words%d", i))
		if err := os.WriteFile(f, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		x.Background(t, "xterm", "-geometry", geo, "-fa", "DejaVu Sans Mono", "-fs", "11", "-e", "sh", "-c", "cat "+f+"; exec sleep 100000")
	}
	// Beside the others, never under one. The word on the first line, the
	// cursor block on the second (right after the word, it would be read
	// as one more letter).
	x.Background(t, "xterm", "-title", "dvvtarget", "-geometry", "30x2+1450+700", "-fa", "DejaVu Sans Mono", "-fs", "11", "-e", "sh", "-c", "printf '   "+target+"\\n'; exec sleep 100000")
	x.WaitStill(t, "xterm")
	win := xwindow(t, x.Display, "dvvtarget")

	// Read by dvvocr, the resident worker, and by the tesseract program.
	for _, mode := range []struct{ name, worker string }{{"worker", buildOCRWorker(t)}, {"program", "off"}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Setenv("DVV_OCR_WORKER", mode.worker)
			findOnNewText(t, x.Port, target, absent, win)
		})
	}
}

func findOnNewText(t *testing.T, port int, target, absent string, win image.Rectangle) {
	c := dial(t, startDaemon(t), "find-new-text")
	id := openVNC(t, c, "127.0.0.1", port)
	tgt := wire.Target{LimbID: id}
	f := must(t, c, wire.FindArgs{Target: tgt, Text: strp(target)}).Find
	if len(f.Matches) != 1 {
		var near []string
		for _, l := range must(t, c, wire.FindArgs{Target: tgt, Region: &wire.Region{X: win.Min.X, Y: win.Min.Y, W: win.Dx(), H: win.Dy()}}).Find.Lines {
			near = append(near, l.Text)
		}
		t.Fatalf("find %q: %d matches %+v; its window at %v reads %q", target, len(f.Matches), f.Matches, win, near)
	}
	m := f.Matches[0]
	if box := image.Rect(m.Box.X, m.Box.Y, m.Box.X+m.Box.W, m.Box.Y+m.Box.H); !box.In(win) {
		t.Fatalf("%q read at %v; the X server placed its window at %v", target, box, win)
	}
	if f := must(t, c, wire.FindArgs{Target: tgt, Text: strp(absent)}).Find; len(f.Matches) != 0 {
		t.Fatalf("%q is drawn nowhere but was found: %+v", absent, f.Matches)
	}
	all := must(t, c, wire.FindArgs{Target: tgt}).Find
	n, words := 0, 0
	for _, l := range all.Lines {
		n += strings.Count(strings.ToLower(l.Text), target)
		words += len(strings.Fields(l.Text))
	}
	if n != 1 || words < 500 {
		t.Fatalf("the whole text: %q %d times, %d words read", target, n, words)
	}
}

// buildOCRWorker builds dvvocr (cgo, libtesseract) into a temporary
// directory and returns its path.
func buildOCRWorker(t *testing.T) string {
	t.Helper()
	if exec.Command("pkg-config", "--exists", "tesseract").Run() != nil {
		testbed.Unavailable(t, "libtesseract-dev is not installed: run `make testdeps`")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-tags", "libtesseract", "-o", dir+"/", "../../cmd/dvvocr")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build dvvocr: %v\n%s", err, out)
	}
	return filepath.Join(dir, "dvvocr")
}

// syllableWord is a made-up word of syllables (consonant, vowel): never
// seen before, yet shaped like a word, which Tesseract reads without the
// slips it makes on runs of random letters (ff read as tf). No i, l, o, j,
// g, q: letters a monospaced font draws like a digit or like each other;
// no k, which Tesseract reads as < at the start of a line.
func syllableWord(rng *rand.Rand, syllables int) string {
	const consonants, vowels = "bdfhmnprstz", "aeu"
	b := make([]byte, 0, 2*syllables)
	for range syllables {
		b = append(b, consonants[rng.IntN(len(consonants))], vowels[rng.IntN(len(vowels))])
	}
	return string(b)
}
