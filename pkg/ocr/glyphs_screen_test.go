package ocr

import (
	"context"
	"image"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/fb"
)

// TestGlyphDictReadsWhatIsDrawn: after a screen of random words in a
// terminal font is read by the engine, every word the dictionary reads off
// a second screen of other words (in the same places) is one drawn there.
func TestGlyphDictReadsWhatIsDrawn(t *testing.T) {
	worker := buildWorker(t)
	font := newMonoFont(t, "DejaVu-Sans-Mono", 15, "abdefhmnprstuz")
	eng := &Engine{Worker: worker, Program: "/nonexistent/tesseract"}
	bad, total := 0, 0
	for seed := uint64(0); seed < 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		buf := fb.New()
		buf.Resize(1920, 1080)
		fill(buf, image.Rect(0, 0, 1920, 1080), 0xff)
		wordScreen(buf, font, rng)
		r := NewReader(eng, buf, "eng")
		if _, _, err := r.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.Close()
		want := wordScreen(buf, font, rng)
		truth := map[string]bool{}
		for _, l := range want {
			for _, w := range strings.Fields(l) {
				truth[w] = true
			}
		}
		img, _ := buf.Snapshot(image.Rect(0, 0, 1920, 1080))
		for _, b := range segment(img, image.Point{}) {
			lines, ok := r.dict.lookup(b)
			if !ok {
				continue
			}
			for _, w := range lines[0].Words {
				total++
				if !truth[w.Text] {
					bad++
					t.Logf("seed %d: %q at %v", seed, w.Text, w.Box)
				}
			}
		}
	}
	t.Logf("%d of %d words looked up are not on the screen", bad, total)
	if bad > 0 || total < 500 {
		t.Fatalf("%d words read from the dictionary, %d of them not drawn", total, bad)
	}
}

// TestFirstScreenIsStaged: the first screen of new text a reader sees, in a
// font it has never read, is mostly looked up (the engine reads only the
// lines that teach the font) and reads as drawn.
func TestFirstScreenIsStaged(t *testing.T) {
	worker := buildWorker(t)
	font := newMonoFont(t, "DejaVu-Sans-Mono", 15, "abdefhmnprstuz")
	eng := &Engine{Worker: worker, Program: "/nonexistent/tesseract"}
	for seed := uint64(0); seed < 2; seed++ {
		buf := fb.New()
		buf.Resize(1920, 1080)
		fill(buf, image.Rect(0, 0, 1920, 1080), 0xff)
		want := wordScreen(buf, font, rand.New(rand.NewPCG(seed, 11)))
		r := NewReader(eng, buf, "eng")
		lines, st, err := r.Read(context.Background())
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, l := range lines {
			for _, w := range l.Words {
				got[w.Text]++
			}
		}
		right, total := 0, 0
		for _, l := range want {
			for _, w := range strings.Fields(l) {
				total++
				if got[w] > 0 {
					got[w]--
					right++
				}
			}
		}
		t.Logf("seed %d: %d blocks by the engine, %d looked up; %d of %d words read exactly", seed, st.Blocks, st.Looked, right, total)
		if st.Looked < 3*st.Blocks {
			t.Errorf("seed %d: the engine read %d blocks and the dictionary only %d", seed, st.Blocks, st.Looked)
		}
		if right*100 < total*97 {
			t.Errorf("seed %d: %d of %d words read exactly", seed, right, total)
		}
	}
}
