package ocr

import (
	"context"
	"fmt"
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

// lsChars are the characters lsLine draws.
const lsChars = "abcdefghijklmnopqrstuvwxyz0123456789-._:"

// lsLine returns a made-up `ls -l` line: permissions, owners and a file
// name never seen before, shaped like a shared library's or a package's
// (digits, dots, dashes, underscores).
func lsLine(rng *rand.Rand) string {
	perms := []string{"-rw-r--r--", "-rwxr-xr-x", "drwxr-xr-x", "lrwxrwxrwx"}
	months := []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
	sep := func() string { return string("_-."[rng.IntN(3)]) }
	num := func() string { return fmt.Sprint(rng.IntN([]int{10, 100, 10000}[rng.IntN(3)])) }
	w := syllableWords(rng, 4)
	var name string
	switch rng.IntN(3) {
	case 0:
		name = "lib" + w[2] + sep() + w[3] + "-" + num() + "." + num() + ".so." + num() + "." + num()
	case 1:
		name = w[2] + sep() + num() + "." + num() + sep() + w[3] + ".tar.gz"
	default:
		name = w[2] + "_" + w[3] + num() + "." + w[0][:1] + "z"
	}
	return fmt.Sprintf("%s %2d %-5s %-5s %8d %s %2d %02d:%02d %s", perms[rng.IntN(len(perms))], 1+rng.IntN(12),
		w[0], w[1], rng.IntN(99999999), months[rng.IntN(12)], 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), name)
}

// lsScreen paints 2 columns of 40 terminal lines of lsLine and returns the
// lines drawn and where.
func lsScreen(buf *fb.Buffer, f *monoFont, rng *rand.Rand) (lines []string, at []image.Point) {
	for i := 0; i < 80; i++ {
		text := lsLine(rng)
		p := image.Pt(4+(i/40)*960, 4+(i%40)*(f.cellH+4))
		f.draw(buf, text, p, 95)
		lines, at = append(lines, text), append(at, p)
	}
	return lines, at
}

// BenchmarkNewTextSeenFont: a 1920x1080 mirror of 80 terminal lines of
// random words (DejaVu Sans Mono 15 px at a whole-pixel pitch, as xterm
// draws), read once; then a second screen of different random words in the
// same places, timed, with the glyph dictionary on and off. Each iteration
// starts a new reader. words-% is the share of the second screen's words
// read exactly.
//
//	go test -run '^$' -bench NewTextSeenFont -benchtime 3x ./pkg/ocr
func BenchmarkNewTextSeenFont(b *testing.B) {
	font := newMonoFont(b, "DejaVu-Sans-Mono", 15, "abdefhmnprstuz")
	benchSecondScreen(b, func(buf *fb.Buffer, rng *rand.Rand) []string { return wordScreen(buf, font, rng) },
		[]dictMode{{"dictionary", false, false, false}, {"no-cells", false, false, true}, {"engine-only", true, false, false}})
}

// BenchmarkNewFileNamesSeenFont: as BenchmarkNewTextSeenFont, with 80 `ls
// -l` lines of file names never seen before (lsLine), which the engine is
// seldom sure of as whole words: the dictionary learning from the sure
// characters of unsure words too ("characters"), from sure words only
// ("words-only"), and no dictionary ("engine-only").
//
//	go test -run '^$' -bench NewFileNamesSeenFont -benchtime 3x ./pkg/ocr
func BenchmarkNewFileNamesSeenFont(b *testing.B) {
	font := newMonoFont(b, "DejaVu-Sans-Mono", 15, lsChars)
	benchSecondScreen(b, func(buf *fb.Buffer, rng *rand.Rand) []string {
		lines, _ := lsScreen(buf, font, rng)
		return lines
	}, []dictMode{{"characters", false, false, false}, {"no-cells", false, false, true}, {"words-only", false, true, false}, {"engine-only", true, false, false}})
}

// dictMode is how a benchmark's reader uses the glyph dictionary.
type dictMode struct {
	name      string
	off       bool // no dictionary
	wordsOnly bool // learned from sure words only
	noCells   bool // touching letters not cut at a monospaced line's cells
}

// benchSecondScreen times the read of a second screen drawn by draw after
// a first one was read, in each mode.
func benchSecondScreen(b *testing.B, draw func(*fb.Buffer, *rand.Rand) []string, modes []dictMode) {
	benchScreen(b, draw, modes, false)
}

// BenchmarkNewTextNewFont: the first screen of BenchmarkNewTextSeenFont's
// text, timed: a new reader, whose dictionary knows no glyph yet (with it,
// the engine reads the few lines that hold every glyph, and the dictionary
// the rest; without, the engine reads every line).
//
//	go test -run '^$' -bench NewTextNewFont -benchtime 3x ./pkg/ocr
func BenchmarkNewTextNewFont(b *testing.B) {
	font := newMonoFont(b, "DejaVu-Sans-Mono", 15, "abdefhmnprstuz")
	benchScreen(b, func(buf *fb.Buffer, rng *rand.Rand) []string { return wordScreen(buf, font, rng) },
		[]dictMode{{"dictionary", false, false, false}, {"no-cells", false, false, true}, {"engine-only", true, false, false}}, true)
}

// BenchmarkNewFileNamesNewFont: the first screen of
// BenchmarkNewFileNamesSeenFont's `ls -l` lines, timed, as
// BenchmarkNewTextNewFont.
//
//	go test -run '^$' -bench NewFileNamesNewFont -benchtime 3x ./pkg/ocr
func BenchmarkNewFileNamesNewFont(b *testing.B) {
	font := newMonoFont(b, "DejaVu-Sans-Mono", 15, lsChars)
	benchScreen(b, func(buf *fb.Buffer, rng *rand.Rand) []string {
		lines, _ := lsScreen(buf, font, rng)
		return lines
	}, []dictMode{{"characters", false, false, false}, {"no-cells", false, false, true}, {"words-only", false, true, false}, {"engine-only", true, false, false}}, true)
}

// benchScreen times the read of the first screen drawn by draw, or of a
// second one after the first was read, in each mode.
func benchScreen(b *testing.B, draw func(*fb.Buffer, *rand.Rand) []string, modes []dictMode, firstScreen bool) {
	worker := buildWorker(b)
	for _, mode := range modes {
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
				want := draw(buf, rng)
				r := NewReader(eng, buf, "eng")
				if r.dict != nil {
					r.dict.wordsOnly, r.dict.noCells = mode.wordsOnly, mode.noCells
				}
				if !firstScreen {
					if _, _, err := r.Read(ctx); err != nil {
						b.Fatal(err)
					}
					want = draw(buf, rng)
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
				}
				ok, n := wordsReadExactly(lines, want)
				right, total = right+ok, total+n
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
