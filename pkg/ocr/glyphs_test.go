package ocr

import (
	"image"
	"strings"
	"testing"
)

// tinyFont is a 5-row bitmap font; '#' is ink. 'c' and 'o' are drawn alike
// on purpose (a bitmap two characters share), ',' and '\” too but at
// different heights.
var tinyFont = map[rune][]string{
	'a': {".##.", "#..#", "####", "#..#", "#..#"},
	'b': {"###.", "#..#", "###.", "#..#", "###."},
	'd': {"###.", "#..#", "#..#", "#..#", "###."},
	'e': {"####", "#...", "###.", "#...", "####"},
	'c': {".##.", "#..#", "#..#", "#..#", ".##."},
	'o': {".##.", "#..#", "#..#", "#..#", ".##."},
	'i': {"#", ".", "#", "#", "#"},
	'x': {"#...#", ".#.#.", "..#..", ".#.#.", "#...#"},
	// Below the baseline, the only glyph with a sixth row.
	'_': {"....", "....", "....", "....", "....", "####"},
	'-': {"...", "...", "###", "...", "..."},
}

// segmentLine is a block's glyphs cut at ink columns only, never at cells
// (what glyphDict.segment does for a line with no grid).
func segmentLine(g *gray, r image.Rectangle, paper uint8) (glyphs []glyph, baseline int, ok bool) {
	runs, ok := inkRuns(g, r, paper)
	if !ok {
		return nil, 0, false
	}
	return onBaseline(runs)
}

// drawLine draws text in tinyFont, letters 1 pixel apart and words 4, on
// white paper with a 3-pixel margin, and returns the picture, the line's
// block and each word's box.
func drawLine(text string, letterGap, spaceGap int) (*gray, block, []image.Rectangle) {
	const margin = 3
	w := margin
	for _, word := range strings.Fields(text) {
		for _, ch := range word {
			w += len(tinyFont[ch][0]) + letterGap
		}
		w += spaceGap - letterGap
	}
	rows := 5
	for _, ch := range text {
		rows = max(rows, len(tinyFont[ch]))
	}
	g := &gray{w: w + margin, h: rows + 2*margin}
	g.pix = make([]uint8, g.w*g.h)
	for i := range g.pix {
		g.pix[i] = 0xff
	}
	var boxes []image.Rectangle
	x := margin
	for _, word := range strings.Fields(text) {
		box := image.Rect(x, margin, x, margin+5)
		for _, ch := range word {
			rows := tinyFont[ch]
			for y, row := range rows {
				for i, c := range row {
					if c == '#' {
						g.pix[(margin+y)*g.w+x+i] = 0
					}
				}
			}
			x += len(rows[0]) + letterGap
			box.Max.X = x - letterGap
		}
		boxes = append(boxes, box)
		x += spaceGap - letterGap
	}
	r := image.Rect(margin, margin, g.w-margin, margin+rows)
	return g, block{g: g, r: r}, boxes
}

// readAs is the engine's answer for a line drawn by drawLine.
func readAs(text string, boxes []image.Rectangle, conf float64) []Line {
	var l Line
	for i, w := range strings.Fields(text) {
		l.Words = append(l.Words, Word{Text: w, Box: boxes[i], Conf: conf})
		l.Box = l.Box.Union(boxes[i])
	}
	return []Line{l}
}

func TestSegmentLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rows   []string
		glyphs int
		ok     bool
	}{
		{"two glyphs", []string{"#.#", "#.#", "#.#"}, 2, true},
		{"touching glyphs are one", []string{"##", "##", "##"}, 1, true},
		{"a dot above a stem is one glyph", []string{"#..", "...", "#.#", "#.#", "#.#"}, 2, true},
		{"two lines", []string{"#.#", "#.#", "...", "...", "#.#", "#.#"}, 0, false},
		{"no ink", []string{"...", "..."}, 0, false},
		{"baseline shared by too few", []string{"#.#.#", "#.#.#", "..#.#", "....#"}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &gray{w: len(tc.rows[0]), h: len(tc.rows)}
			for _, row := range tc.rows {
				for _, c := range row {
					v := uint8(0xff)
					if c == '#' {
						v = 0
					}
					g.pix = append(g.pix, v)
				}
			}
			gl, _, ok := segmentLine(g, image.Rect(0, 0, g.w, g.h), 0xff)
			if ok != tc.ok || (ok && len(gl) != tc.glyphs) {
				t.Fatalf("%d glyphs, ok %v; want %d, %v", len(gl), ok, tc.glyphs, tc.ok)
			}
		})
	}
	tall := &gray{w: 3, h: maxGlyphSide + 1, pix: make([]uint8, 3*(maxGlyphSide+1))}
	if _, _, ok := segmentLine(tall, image.Rect(0, 0, 3, tall.h), 0xff); ok {
		t.Fatal("a block taller than a glyph may be was segmented as a line")
	}
}

func TestGlyphDictLearnAndLookup(t *testing.T) {
	learn := func(d *glyphDict, text string, conf float64) {
		_, b, boxes := drawLine(text, 1, 4)
		d.learn(b, readAs(text, boxes, conf))
	}
	lookup := func(d *glyphDict, text string, letterGap, spaceGap int) (string, bool) {
		_, b, _ := drawLine(text, letterGap, spaceGap)
		lines, ok := d.lookup(b)
		if !ok {
			return "", false
		}
		return lines[0].Text(), true
	}
	t.Run("new words of known glyphs", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "bad dab", 0.95)
		learn(d, "bed ax", 0.95)
		got, ok := lookup(d, "abe deb xa", 1, 4)
		if !ok || got != "abe deb xa" {
			t.Fatalf("read %q, %v", got, ok)
		}
		_, b, boxes := drawLine("abe deb", 1, 4)
		lines, _ := d.lookup(b)
		if lines[0].Words[1].Box != boxes[1] || lines[0].Words[1].Conf != 0.95 {
			t.Fatalf("word %+v; drawn at %v", lines[0].Words[1], boxes[1])
		}
	})
	t.Run("an unknown glyph sends the line to the engine", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "bad dab", 0.95)
		if got, ok := lookup(d, "bad be", 1, 4); ok {
			t.Fatalf("read %q with an e never learned", got)
		}
	})
	t.Run("unsure words are not learned", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "bad dab", learnConf-0.05)
		if d.size() != 0 {
			t.Fatalf("%d glyphs learned", d.size())
		}
	})
	t.Run("a word whose glyphs do not match its letters is not learned", func(t *testing.T) {
		d := newGlyphDict()
		_, b, boxes := drawLine("bad", 1, 4)
		d.learn(b, readAs("bd", boxes, 0.99))
		if d.size() != 0 {
			t.Fatalf("%d glyphs learned", d.size())
		}
	})
	t.Run("a bitmap read as two characters is poisoned", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "cab bad", 0.95)
		learn(d, "oba bad", 0.95)
		if got, ok := lookup(d, "bad", 1, 4); !ok || got != "bad" {
			t.Fatalf("read %q, %v", got, ok)
		}
		if got, ok := lookup(d, "cab", 1, 4); ok {
			t.Fatalf("read %q from a poisoned glyph", got)
		}
	})
	t.Run("a gap neither a letter's nor a word's goes to the engine", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "bad dab", 0.95)
		if got, ok := lookup(d, "bad dab", 2, 4); ok {
			t.Fatalf("read %q with 2-pixel letter gaps", got)
		}
		if got, ok := lookup(d, "bad dab", 1, 3); ok {
			t.Fatalf("read %q with 3-pixel word gaps", got)
		}
	})
	// learnChars teaches a line read conf sure as words, whose characters
	// carry sure's answer (their boxes the glyphs' own, moved by shift).
	learnChars := func(d *glyphDict, text string, conf float64, sure func(rune) float64, shift int) {
		g, b, boxes := drawLine(text, 1, 4)
		glyphs, _, _ := segmentLine(g, b.r, 0xff)
		lines := readAs(text, boxes, conf)
		i := 0
		for wi, w := range strings.Fields(text) {
			for _, ch := range w {
				lines[0].Words[wi].chars = append(lines[0].Words[wi].chars, char{text: string(ch), box: glyphs[i].box.Add(image.Pt(shift, 0)), conf: sure(ch)})
				i++
			}
		}
		d.learn(b, lines)
	}
	allSure := func(rune) float64 { return 0.995 }
	t.Run("sure characters of an unsure word are learned, unsure ones not", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "ex ie", 0.99) // the gaps
		learnChars(d, "xbad xdab", 0.5, func(ch rune) float64 {
			if ch == 'a' {
				return fairConf - 0.01
			}
			return 0.995
		}, 0)
		if got, ok := lookup(d, "bd db", 1, 4); !ok || got != "bd db" {
			t.Fatalf("read %q, %v", got, ok)
		}
		if got, ok := lookup(d, "bad", 1, 4); ok {
			t.Fatalf("read %q with an a read unsure", got)
		}
	})
	t.Run("an unsure word's first letter teaches nothing", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "ex ie", 0.99)
		learnChars(d, "bd bd", 0.5, allSure, 0)
		if got, ok := lookup(d, "dd", 1, 4); !ok || got != "dd" {
			t.Fatalf("read %q, %v", got, ok)
		}
		if got, ok := lookup(d, "bd", 1, 4); ok {
			t.Fatalf("read %q with a b only ever first in its word", got)
		}
	})
	t.Run("fairly sure characters count half and never undo a glyph in use", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "ex ie", 0.99)
		fair := func(rune) float64 { return fairConf + 0.01 }
		learnChars(d, "xbd xdb", 0.5, fair, 0)
		if got, ok := lookup(d, "bd", 1, 4); ok {
			t.Fatalf("read %q from two fairly sure reads", got)
		}
		learnChars(d, "xbd xdb", 0.5, fair, 0)
		if got, ok := lookup(d, "bd db", 1, 4); !ok || got != "bd db" {
			t.Fatalf("read %q, %v", got, ok)
		}
		misread := func(conf float64) {
			g, b, boxes := drawLine("xdd", 1, 4)
			glyphs, _, _ := segmentLine(g, b.r, 0xff)
			lines := readAs("xbb", boxes, 0.5)
			for i, ch := range "xbb" {
				lines[0].Words[0].chars = append(lines[0].Words[0].chars, char{text: string(ch), box: glyphs[i].box, conf: conf})
			}
			d.learn(b, lines)
		}
		misread(fairConf + 0.01)
		if got, ok := lookup(d, "dd", 1, 4); !ok || got != "dd" {
			t.Fatalf("after a fairly sure misreading: read %q, %v", got, ok)
		}
		misread(0.995)
		if got, ok := lookup(d, "dd", 1, 4); ok {
			t.Fatalf("read %q from a glyph a sure character contradicted", got)
		}
	})
	t.Run("a character taught by one word is not used until a second", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "ex ie", 0.99)
		learnChars(d, "xbd", 0.5, allSure, 0)
		if got, ok := lookup(d, "db", 1, 4); ok {
			t.Fatalf("read %q from one word", got)
		}
		learnChars(d, "xdb", 0.5, allSure, 0)
		if got, ok := lookup(d, "db bd", 1, 4); !ok || got != "db bd" {
			t.Fatalf("read %q, %v", got, ok)
		}
	})
	t.Run("characters of a word whose glyphs do not match them are not learned", func(t *testing.T) {
		d := newGlyphDict()
		g, b, boxes := drawLine("bad", 1, 4)
		glyphs, _, _ := segmentLine(g, b.r, 0xff)
		lines := readAs("bd", boxes, 0.5)
		lines[0].Words[0].chars = []char{{"b", glyphs[0].box, 0.995}, {"d", glyphs[2].box, 0.995}}
		d.learn(b, lines)
		if d.size() != 0 {
			t.Fatalf("%d glyphs learned", d.size())
		}
	})
	t.Run("a character whose box does not hold its glyph is not learned", func(t *testing.T) {
		d := newGlyphDict()
		learnChars(d, "bad dab", 0.5, allSure, 3)
		if d.size() != 0 {
			t.Fatalf("%d glyphs learned", d.size())
		}
	})
	t.Run("an underscore bar is taught by one fair read, whatever its box", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "ex ie", 0.99)
		learn(d, "bad dab", 0.99)
		// The engine's box for an underscore at a word's edge is narrower
		// than its ink; it is read only fairly sure.
		read := func(text, as string, conf float64) {
			g, b, boxes := drawLine(text, 1, 4)
			glyphs, _, _ := segmentLine(g, b.r, 0xff)
			lines := readAs(text, boxes, 0.5)
			for i, ch := range as {
				box := glyphs[i].box
				if ch == '_' {
					box.Max.X -= 2
				}
				lines[0].Words[0].chars = append(lines[0].Words[0].chars, char{text: string(ch), box: box, conf: conf})
			}
			d.learn(b, lines)
		}
		read("ba_", "ba_", fairConf-0.05) // unsure: no credit
		if got, ok := lookup(d, "d_b", 1, 4); ok {
			t.Fatalf("read %q from an unsure underscore", got)
		}
		read("ba_", "ba_", fairConf+0.01)
		if got, ok := lookup(d, "d_b", 1, 4); !ok || got != "d_b" {
			t.Fatalf("read %q, %v", got, ok)
		}
		// A dash is no bar under the baseline: one fair read teaches it
		// half a vote, as any character.
		read("ba-", "ba-", fairConf+0.01)
		if got, ok := lookup(d, "d-b", 1, 4); ok {
			t.Fatalf("read %q from one fair read of a dash", got)
		}
	})
	t.Run("a word read sure outweighs characters", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "ex ie", 0.99)
		learn(d, "bad dab", 0.99)
		// Read sure as characters in an unsure word: "c" for the "a"
		// that sure words read as "a". It neither replaces nor poisons it.
		g, b, boxes := drawLine("bad", 1, 4)
		glyphs, _, _ := segmentLine(g, b.r, 0xff)
		lines := readAs("bcd", boxes, 0.5)
		lines[0].Words[0].chars = []char{{"b", glyphs[0].box, 0.995}, {"c", glyphs[1].box, 0.995}, {"d", glyphs[2].box, 0.995}}
		d.learn(b, lines)
		d.learn(b, lines)
		if got, ok := lookup(d, "dab", 1, 4); !ok || got != "dab" {
			t.Fatalf("read %q, %v", got, ok)
		}
		// And a sure word replaces what characters taught.
		d = newGlyphDict()
		learn(d, "bad dab", 0.99)
		learn(d, "i", 0.99)
		learnChars(d, "iex", 0.5, allSure, 0)
		learnChars(d, "ixe", 0.5, allSure, 0)
		_, b, boxes = drawLine("xi", 1, 4)
		if got, ok := lookup(d, "ex", 1, 4); !ok || got != "ex" {
			t.Fatalf("read %q, %v", got, ok)
		}
		d.learn(b, readAs("ei", boxes, 0.99))
		if got, ok := lookup(d, "xi", 1, 4); !ok || got != "ei" {
			t.Fatalf("read %q, %v", got, ok)
		}
	})
	t.Run("a glyph of letters drawn touching is learned as all of them", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "ex ie", 0.99) // the gaps
		// "bad dab" with no gap between letters: two glyphs, six
		// characters, whose boxes are the letters' own.
		g, b, boxes := drawLine("bad dab", 0, 4)
		lines := readAs("bad dab", boxes, 0.99)
		for wi, w := range strings.Fields("bad dab") {
			x := boxes[wi].Min.X
			for _, ch := range w {
				wd := len(tinyFont[ch][0])
				lines[0].Words[wi].chars = append(lines[0].Words[wi].chars, char{text: string(ch), box: image.Rect(x, boxes[wi].Min.Y, x+wd, boxes[wi].Max.Y), conf: 0.995})
				x += wd
			}
		}
		if glyphs, _, _ := segmentLine(g, b.r, 0xff); len(glyphs) != 2 {
			t.Fatalf("%d glyphs", len(glyphs))
		}
		d.learn(b, lines)
		if got, ok := lookup(d, "dab bad", 0, 4); !ok || got != "dab bad" {
			t.Fatalf("read %q, %v", got, ok)
		}
		// Without the characters (the program) such a word teaches nothing.
		d = newGlyphDict()
		learn(d, "ex ie", 0.99)
		learn(d, "bad dab", 0.99)
		_, b, boxes = drawLine("bad dab", 0, 4)
		d.learn(b, readAs("bad dab", boxes, 0.99))
		if got, ok := lookup(d, "dab bad", 0, 4); ok {
			t.Fatalf("read %q", got)
		}
	})
	t.Run("a word space under a third of the font's height is not learned", func(t *testing.T) {
		d := newGlyphDict()
		learn(d, "bad dab", 0.95)
		_, b, boxes := drawLine("bad dab", 1, 1) // read as two words one pixel apart
		d.learn(b, readAs("bad dab", boxes, 0.95))
		if got, ok := lookup(d, "dab bad", 1, 4); !ok || got != "dab bad" {
			t.Fatalf("read %q, %v", got, ok)
		}
	})
	t.Run("the dictionary told to learn from words only ignores characters", func(t *testing.T) {
		d := newGlyphDict()
		d.wordsOnly = true
		learnChars(d, "bad dab", 0.5, allSure, 0)
		if d.size() != 0 {
			t.Fatalf("%d glyphs learned", d.size())
		}
	})
	t.Run("bounded", func(t *testing.T) {
		d := newGlyphDict()
		for i := 0; i < dictGlyphs+10; i++ {
			d.put(glyphKey{sum: uint64(i), w: 1, h: 1}, "a", 1, true, false)
		}
		if d.size() != dictGlyphs {
			t.Fatalf("%d glyphs kept", d.size())
		}
		if _, ok := d.byKey[glyphKey{sum: 0, w: 1, h: 1}]; ok {
			t.Fatal("the least recently used glyph was kept")
		}
	})
}

// FuzzSegmentLine: any picture segments without panicking, into glyphs
// inside the block, left to right and apart; a dictionary that learned
// nothing reads nothing.
func TestUnderBar(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []bool // for each glyph
	}{
		{"b_d", []bool{false, true, false}},
		{"b-d", []bool{false, false, false}},
		{"bi_", []bool{false, false, true}},
	} {
		g, b, _ := drawLine(tc.text, 1, 4)
		glyphs, baseline, ok := segmentLine(g, b.r, 0xff)
		if !ok || len(glyphs) != len(tc.want) {
			t.Fatalf("%s: %d glyphs, %v", tc.text, len(glyphs), ok)
		}
		for i, gl := range glyphs {
			if got := underBar(g, gl, 0xff, baseline); got != tc.want[i] {
				t.Errorf("%s, glyph %d: underBar %v", tc.text, i, got)
			}
		}
	}
}

// TestProgressCountsVotesOfGlyphsNotInUse: a read that brings a glyph
// nearer to use is progress even when nothing is put in use yet.
func TestProgressCountsVotesOfGlyphsNotInUse(t *testing.T) {
	d := newGlyphDict()
	k := glyphKey{sum: 1, w: 4, h: 5, dy: 5}
	d.put(k, "z", fairConf+0.01, false, true)
	p := d.progress()
	d.put(k, "z", fairConf+0.01, false, true)
	if d.progress() <= p || d.inUse() != 0 {
		t.Fatalf("progress %d after %d, %d in use", d.progress(), p, d.inUse())
	}
	p = d.progress()
	d.put(k, "z", 0.995, false, false) // now in use
	if d.progress() <= p || d.inUse() != 1 {
		t.Fatalf("progress %d after %d, %d in use", d.progress(), p, d.inUse())
	}
	p = d.progress()
	d.put(k, "z", 0.995, false, false) // in use already: no progress
	if d.progress() != p {
		t.Fatalf("progress %d after %d for a glyph in use", d.progress(), p)
	}
}

func FuzzSegmentLine(f *testing.F) {
	g, _, _ := drawLine("bad dab xi", 1, 4)
	f.Add(g.pix, uint8(g.w), uint8(0xff))
	f.Add([]byte{0, 255, 0, 255, 0, 255, 0, 255, 0}, uint8(3), uint8(0))
	f.Fuzz(func(t *testing.T, pix []byte, width, paper uint8) {
		w := int(width)
		if w == 0 || len(pix) < w {
			return
		}
		g := &gray{pix: pix[:len(pix)/w*w], w: w, h: len(pix) / w}
		r := image.Rect(0, 0, g.w, g.h)
		glyphs, _, ok := segmentLine(g, r, paper)
		if !ok {
			return
		}
		for i, gl := range glyphs {
			if gl.box.Empty() || !gl.box.In(r) || (i > 0 && gl.box.Min.X <= glyphs[i-1].box.Max.X) {
				t.Fatalf("glyph %d at %v (previous %v) in %v", i, gl.box, glyphs[max(i-1, 0)].box, r)
			}
		}
		if _, ok := newGlyphDict().lookup(block{g: g, r: r}); ok {
			t.Fatal("an empty dictionary read a line")
		}
	})
}

// size is the number of glyphs known (poisoned ones included).
func (d *glyphDict) size() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lru.Len()
}
