package ocr

import (
	"context"
	"image"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/fb"
)

// monoFont draws text as a terminal does: every character's picture (drawn
// once by ImageMagick) at a whole-pixel cell pitch.
type monoFont struct {
	cells        map[rune]*image.RGBA
	cellW, cellH int
}

func newMonoFont(t testing.TB, font string, px int, chars string) *monoFont {
	f := &monoFont{cells: map[rune]*image.RGBA{}}
	for _, ch := range chars {
		img := labelIn(t, font, string(ch), px)
		f.cells[ch] = img
		f.cellW, f.cellH = max(f.cellW, img.Bounds().Dx()), max(f.cellH, img.Bounds().Dy())
	}
	return f
}

// draw paints text at p and clears the rest of a line of n cells.
func (f *monoFont) draw(buf *fb.Buffer, text string, p image.Point, n int) {
	fill(buf, image.Rect(p.X, p.Y, p.X+n*f.cellW, p.Y+f.cellH), 0xff)
	for i, ch := range text {
		if c := f.cells[ch]; c != nil && ch != ' ' {
			paint(buf, c, p.Add(image.Pt(i*f.cellW, 0)))
		}
	}
}

// syllableWords returns made-up words (consonant, vowel syllables), as the
// e2e tests draw: never seen before, yet shaped like words.
func syllableWords(rng *rand.Rand, n int) []string {
	const consonants, vowels = "bdfhmnprstz", "aeu"
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteByte(consonants[rng.IntN(len(consonants))])
			b.WriteByte(vowels[rng.IntN(len(vowels))])
		}
		out[i] = b.String()
	}
	return out
}

// wordScreen paints 2 columns of 40 terminal lines of random words and
// returns the lines drawn.
func wordScreen(buf *fb.Buffer, f *monoFont, rng *rand.Rand) []string {
	var lines []string
	for i := 0; i < 80; i++ {
		text := strings.Join(syllableWords(rng, 9), " ")
		f.draw(buf, text, image.Pt(4+(i/40)*960, 4+(i%40)*(f.cellH+4)), 95)
		lines = append(lines, text)
	}
	return lines
}

// BenchmarkNewTextSeenFont: a 1920x1080 mirror of 80 terminal lines of
// random words (DejaVu Sans Mono 15 px at a whole-pixel pitch, as xterm
// draws), read once; then a second screen of different random words in the
// same places, timed, with the glyph dictionary on and off. Each iteration
// starts a new reader. words-% is the share of the second screen's words
// read exactly.
//
//	go test -run '^$' -bench NewTextSeenFont -benchtime 3x ./pkg/ocr
func BenchmarkNewTextSeenFont(b *testing.B) { benchNewText(b, false) }

// BenchmarkNewTextNewFont: the first screen of the same text, timed: a new
// reader whose dictionary knows no glyph yet (with it, a few lines are read
// first and the rest looked up; without, every line goes to the engine).
//
//	go test -run '^$' -bench NewTextNewFont -benchtime 3x ./pkg/ocr
func BenchmarkNewTextNewFont(b *testing.B) { benchNewText(b, true) }

func benchNewText(b *testing.B, firstScreen bool) {
	worker := buildWorker(b)
	font := newMonoFont(b, "DejaVu-Sans-Mono", 15, "abdefhmnprstuz")
	for _, mode := range []struct {
		name string
		off  bool
	}{{"dictionary", false}, {"engine-only", true}} {
		b.Run(mode.name, func(b *testing.B) {
			eng := &Engine{Worker: worker, Program: "/nonexistent/tesseract", NoGlyphs: mode.off}
			ctx := context.Background()
			var cpu float64
			looked, blocks, right, total, errs, chars := 0, 0, 0, 0, 0, 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				rng := rand.New(rand.NewPCG(uint64(i), 7))
				buf := fb.New()
				buf.Resize(1920, 1080)
				fill(buf, image.Rect(0, 0, 1920, 1080), 0xff)
				want := wordScreen(buf, font, rng)
				r := NewReader(eng, buf, "eng")
				if !firstScreen {
					if _, _, err := r.Read(ctx); err != nil {
						b.Fatal(err)
					}
					want = wordScreen(buf, font, rng)
				}
				cpu0 := selfCPU() + workersCPU(worker)
				b.StartTimer()
				lines, st, err := r.Read(ctx)
				b.StopTimer()
				cpu += float64((selfCPU() + workersCPU(worker) - cpu0).Microseconds()) / 1000
				r.Close()
				if err != nil {
					b.Fatal(err)
				}
				looked += st.Looked
				blocks += st.Blocks
				got := map[string]int{}
				for _, l := range lines {
					for _, w := range l.Words {
						got[w.Text]++
					}
				}
				var read []string
				for _, l := range lines {
					read = append(read, l.Text())
				}
				for _, l := range want {
					best := len(l)
					for _, r := range read {
						best = min(best, editDistance(l, r))
					}
					errs, chars = errs+best, chars+len(l)
					for _, w := range strings.Fields(l) {
						total++
						if got[w] > 0 {
							got[w]--
							right++
						}
					}
				}
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(looked)/float64(b.N), "looked/op")
			b.ReportMetric(float64(blocks)/float64(b.N), "engine-blocks/op")
			b.ReportMetric(100*float64(right)/float64(max(total, 1)), "words-%")
			b.ReportMetric(100*float64(errs)/float64(max(chars, 1)), "CER-%")
		})
	}
}

// editDistance is the Levenshtein distance between two ASCII strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}
