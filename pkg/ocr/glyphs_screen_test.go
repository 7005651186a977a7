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

// TestGlyphDictReadsNewFileNames: after a screen of `ls -l` lines of file
// names never seen before (digits, dots, dashes, underscores: words the
// engine is seldom sure of as a whole) is read by the engine, a second
// screen of other such lines is read mostly from the dictionary, and every
// line the dictionary reads is what was drawn there. Learned from sure
// words only, the dictionary reads far fewer of them.
func TestGlyphDictReadsNewFileNames(t *testing.T) {
	worker := buildWorker(t)
	font := newMonoFont(t, "DejaVu-Sans-Mono", 15, lsChars)
	eng := &Engine{Worker: worker, Program: "/nonexistent/tesseract"}
	lookedUp := map[bool]int{}
	looked, engine := 0, 0
	for _, wordsOnly := range []bool{false, true} {
		for seed := uint64(0); seed < 2; seed++ {
			rng := rand.New(rand.NewPCG(seed, 7))
			buf := fb.New()
			buf.Resize(1920, 1080)
			fill(buf, image.Rect(0, 0, 1920, 1080), 0xff)
			lsScreen(buf, font, rng)
			r := NewReader(eng, buf, "eng")
			r.dict.wordsOnly = wordsOnly
			ctx := context.Background()
			if _, _, err := r.Read(ctx); err != nil {
				t.Fatal(err)
			}
			texts, at := lsScreen(buf, font, rng)
			img, _ := buf.Snapshot(image.Rect(0, 0, 1920, 1080))
			bad := 0
			for _, b := range segment(img, image.Point{}) {
				lines, ok := r.dict.lookup(b)
				if !ok {
					continue
				}
				lookedUp[wordsOnly]++
				if got, want := lines[0].Text(), drawnIn(b.r, texts, at, font); got != want {
					bad++
					t.Errorf("words only %v, seed %d: read %q where %q is drawn", wordsOnly, seed, got, want)
				}
			}
			if wordsOnly {
				r.Close()
				continue
			}
			lines, st, err := r.Read(ctx)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			right, total := wordsReadExactly(lines, texts)
			t.Logf("seed %d: second screen: %d blocks from the dictionary, %d by the engine; %d of %d words read exactly", seed, st.Looked, st.Blocks, right, total)
			looked, engine = looked+st.Looked, engine+st.Blocks
			if right*100 < total*85 {
				t.Errorf("seed %d: %d of %d words read exactly", seed, right, total)
			}
		}
	}
	if looked <= engine {
		t.Errorf("second screens: %d blocks read from the dictionary, %d by the engine", looked, engine)
	}
	t.Logf("lines looked up: %d learning from characters, %d from words only", lookedUp[false], lookedUp[true])
	if lookedUp[false] < lookedUp[true]*3/2 {
		t.Errorf("characters gave %d lines looked up, words only %d", lookedUp[false], lookedUp[true])
	}
}

// drawnIn is the text a monoFont line drawn at at[i] holds within r, its
// runs of spaces as one.
func drawnIn(r image.Rectangle, texts []string, at []image.Point, f *monoFont) string {
	for i, p := range at {
		if r.Min.Y >= p.Y && r.Min.Y < p.Y+f.cellH && r.Min.X >= p.X && r.Min.X < p.X+len(texts[i])*f.cellW {
			lo, hi := (r.Min.X-p.X)/f.cellW, (r.Max.X-p.X+f.cellW-1)/f.cellW
			return strings.Join(strings.Fields(texts[i][lo:min(hi, len(texts[i]))]), " ")
		}
	}
	return ""
}

// wordsReadExactly counts the words of the lines drawn that were read,
// each read word used once.
func wordsReadExactly(lines []Line, drawn []string) (right, total int) {
	got := map[string]int{}
	for _, l := range lines {
		for _, w := range l.Words {
			got[w.Text]++
		}
	}
	for _, l := range drawn {
		for _, w := range strings.Fields(l) {
			total++
			if got[w] > 0 {
				got[w]--
				right++
			}
		}
	}
	return right, total
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
