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
