package ocr

import (
	"container/list"
	"hash/maphash"
	"image"
	"sync"
	"unicode"
	"unicode/utf8"
)

// glyphDict remembers, per reader, what each glyph bitmap read as when
// Tesseract was confident, so a line of new text in a font already seen is
// read by exact lookup instead of the engine. A line is answered from the
// dictionary only when every glyph in it is known and every gap between
// glyphs is plainly a letter gap or a word space; anything else goes to the
// engine, which teaches the dictionary. docs/ocr.md has the design.
type glyphDict struct {
	mu    sync.Mutex
	seed  maphash.Seed
	byKey map[glyphKey]*list.Element
	lru   list.List          // of *glyphEntry, most recent first
	gaps  map[int]*gapBounds // by the line's commonest glyph height
	// wordsOnly learns from words read sure only, not from characters
	// (benchmarks compare the two).
	wordsOnly bool
	// noFair learns from sure characters only, not fairly sure ones
	// (tests compare the two).
	noFair bool
	// grids are the cell grids of monospaced lines, by commonest glyph
	// height, their phase in screen columns (cells.go); noCells never
	// cuts runs at cells (tests and benchmarks compare).
	grids   map[int]keptGrid
	noCells bool
	// firmed counts the votes glyphs not yet in use gained: a read that
	// put no glyph in use may still have brought one nearer (staging goes
	// on while reads do).
	firmed int
}

// glyphKey is a glyph's pixels (hashed, see key), its size and where its
// top is relative to the line's baseline: a comma and an apostrophe may be
// drawn alike, but not at the same height.
type glyphKey struct {
	sum  uint64
	w, h int
	dy   int
}

type glyphEntry struct {
	key      glyphKey
	text     string  // one character, or a few drawn touching
	conf     float64 // the least confidence it was learned from
	poisoned bool    // read as two different characters: never used
	// votes is how often it was learned, in half votes: a word read sure
	// gives charVotes at once, a sure character of an unsure word one, a
	// fairly sure one half.
	votes    int
	fromWord bool // learned from a word read sure
}

// usable reports whether lookups may read the glyph.
func (e *glyphEntry) usable() bool { return !e.poisoned && e.votes >= 2*charVotes }

// gapBounds are the widest gap seen inside a word and the narrowest seen
// between two words, in lines whose commonest glyph height (a font's
// x-height, in practice) is the same: a line with no ascenders is lower
// but spaced as the others.
type gapBounds struct{ inWord, between int }

// noGap is gapBounds.between before any two words of a font were seen.
const noGap = 1 << 30

// Bounds and thresholds of the dictionary.
const (
	dictGlyphs = 4096 // per reader, least recently used dropped
	learnConf  = 0.95 // glyphs: only from words Tesseract read at least this sure of
	gapConf    = 0.80 // gaps: only from words read at least this sure of
	// Characters of words read less sure are learned when the engine was
	// this sure of them, and used once two words taught the same. At
	// 0.95 or 0.98 the engine's sure misreadings (o as 0, l as L in a
	// file name) poisoned good glyphs, and one vote let a rare misreading
	// through (an underscore read as m); docs/ocr.md has the figures.
	charConf  = 0.99
	charVotes = 2
	// A character only this sure (an underscore, seldom read over 0.99)
	// counts half a vote, and poisons no glyph already in use: the
	// engine's sure misreadings are mostly under 0.99.
	fairConf      = 0.95
	maxLineGlyphs = 512
	maxGlyphSide  = 64
)

func newGlyphDict() *glyphDict {
	return &glyphDict{seed: maphash.MakeSeed(), byKey: map[glyphKey]*list.Element{}, gaps: map[int]*gapBounds{}, grids: map[int]keptGrid{}}
}

// glyph is one run of ink columns of a line: its ink box in the grey
// picture's pixels.
type glyph struct{ box image.Rectangle }

// inkAt reports whether a pixel is ink on paper: the reader's own
// binarization (as eraseFrames and lineExtent use).
func inkAt(g *gray, x, y int, paper uint8) bool {
	d := int(g.pix[y*g.w+x]) - int(paper)
	return d > inkDelta || d < -inkDelta
}

// segment cuts a one-line block into glyphs at columns with no ink (the
// runs of a monospaced line cut at its cells too: cells.go) and finds the
// line's baseline (the row most glyphs end on). ok is false for a block
// that is not one line, too long or too tall, or whose baseline is not
// shared by at least half its glyphs.
func (d *glyphDict) segment(b block, paper uint8) (glyphs []glyph, baseline int, ok bool) {
	runs, ok := inkRuns(b.g, b.r, paper)
	if !ok {
		return nil, 0, false
	}
	if glyphs, baseline, ok := onBaseline(d.cells(b, paper, runs)); ok {
		return glyphs, baseline, ok
	}
	// A grid that cuts glyphs apart (half an r off its baseline) is
	// not the line's: its runs as they are.
	return onBaseline(runs)
}

// inkRuns cuts a one-line block at columns with no ink: each run of inked
// columns, trimmed to its ink rows.
func inkRuns(g *gray, r image.Rectangle, paper uint8) (runs []glyph, ok bool) {
	if r.Empty() || r.Dy() > maxGlyphSide || !r.In(image.Rect(0, 0, g.w, g.h)) {
		return nil, false
	}
	if _, one := lineExtent(g, r, paper); !one {
		return nil, false
	}
	start := -1
	for x := r.Min.X; x <= r.Max.X; x++ {
		inked := false
		if x < r.Max.X {
			for y := r.Min.Y; y < r.Max.Y && !inked; y++ {
				inked = inkAt(g, x, y, paper)
			}
		}
		if inked && start < 0 {
			start = x
		}
		if !inked && start >= 0 {
			if len(runs) == maxLineGlyphs {
				return nil, false
			}
			runs = append(runs, glyph{box: inkRows(g, image.Rect(start, r.Min.Y, x, r.Max.Y), paper)})
			start = -1
		}
	}
	return runs, len(runs) > 0
}

// onBaseline finds a line's baseline (the row most of its glyphs end on):
// ok is false when fewer than half share it, or a glyph is too wide or the
// line too long.
func onBaseline(glyphs []glyph) (_ []glyph, baseline int, ok bool) {
	if len(glyphs) == 0 || len(glyphs) > maxLineGlyphs {
		return nil, 0, false
	}
	votes := map[int]int{}
	for _, gl := range glyphs {
		if gl.box.Dx() > maxGlyphSide {
			return nil, 0, false
		}
		votes[gl.box.Max.Y]++
	}
	best := 0
	for y, n := range votes {
		if n > best || (n == best && y > baseline) {
			best, baseline = n, y
		}
	}
	return glyphs, baseline, best*2 >= len(glyphs)
}

// commonHeight is the height most glyphs of a line have (the tallest of
// those, on a tie).
func commonHeight(glyphs []glyph) int {
	n := map[int]int{}
	best := 0
	for _, gl := range glyphs {
		h := gl.box.Dy()
		n[h]++
		if n[h] > n[best] || (n[h] == n[best] && h > best) {
			best = h
		}
	}
	return best
}

// inkRows narrows r to its rows holding ink.
func inkRows(g *gray, r image.Rectangle, paper uint8) image.Rectangle {
	rowInk := func(y int) bool {
		for x := r.Min.X; x < r.Max.X; x++ {
			if inkAt(g, x, y, paper) {
				return true
			}
		}
		return false
	}
	for r.Min.Y < r.Max.Y && !rowInk(r.Min.Y) {
		r.Min.Y++
	}
	for r.Max.Y > r.Min.Y && !rowInk(r.Max.Y-1) {
		r.Max.Y--
	}
	return r
}

// key hashes a glyph's pixels, its size and its height over the baseline.
// Each pixel is hashed as one of four levels of distance from the paper,
// not only ink or not: two characters whose strong strokes binarize alike
// but whose faint (anti-aliased) edges differ get different keys, while a
// terminal, which draws a character with the same pixels every time,
// still gets one.
func (d *glyphDict) key(g *gray, gl glyph, paper uint8, baseline int) glyphKey {
	var h maphash.Hash
	h.SetSeed(d.seed)
	var bits [maxGlyphSide/4 + 1]byte
	for y := gl.box.Min.Y; y < gl.box.Max.Y; y++ {
		clear(bits[:])
		for x := gl.box.Min.X; x < gl.box.Max.X; x++ {
			i := x - gl.box.Min.X
			bits[i/4] |= inkLevel(g.pix[y*g.w+x], paper) << (2 * (i % 4))
		}
		h.Write(bits[:(gl.box.Dx()+3)/4])
	}
	return glyphKey{sum: h.Sum64(), w: gl.box.Dx(), h: gl.box.Dy(), dy: baseline - gl.box.Min.Y}
}

// inkLevel is how far v is from the paper: 0 paper, 1 a faint edge, 2 a
// soft one, 3 ink (more than inkDelta*2.5 away).
func inkLevel(v, paper uint8) byte {
	d := int(v) - int(paper)
	if d < 0 {
		d = -d
	}
	switch {
	case d <= 16:
		return 0
	case d <= inkDelta:
		return 1
	case d <= 160:
		return 2
	}
	return 3
}

// learn teaches the dictionary a block the engine read as lines (screen
// pixels). Only confident words whose glyphs segment one to one with their
// characters are learned, with the gaps inside and between them.
func (d *glyphDict) learn(b block, lines []Line) {
	paper := b.g.background(b.r)
	glyphs, baseline, ok := d.segment(b, paper)
	if !ok || len(lines) != 1 {
		return
	}
	type learned struct {
		first, last int // glyph indexes of the word
	}
	var words []learned
	prevWord := -1 // index in lines[0].Words of the last word learned
	d.mu.Lock()
	defer d.mu.Unlock()
	font := commonHeight(glyphs)
	gb := d.gaps[font]
	for wi, w := range lines[0].Words {
		box := w.Box.Sub(b.origin)
		var idx []int
		for i, gl := range glyphs {
			cx := (gl.box.Min.X + gl.box.Max.X) / 2
			if cx >= box.Min.X && cx < box.Max.X {
				idx = append(idx, i)
			}
		}
		consecutive := len(idx) > 0 && idx[len(idx)-1]-idx[0] == len(idx)-1
		whole := consecutive && len(idx) == utf8.RuneCountInString(w.Text)
		if consecutive {
			d.learnWord(b, glyphs, idx, paper, baseline, w, whole)
		}
		if w.Conf < gapConf || !whole {
			prevWord = -1
			continue
		}
		if gb == nil {
			gb = &gapBounds{inWord: -1, between: noGap}
			d.gaps[font] = gb
		}
		// Gaps are learned from words read less sure than glyphs are:
		// their word breaks are what they teach, and a wrong one only
		// makes the two bounds overlap, which sends the font's lines to
		// the engine (from then on: so not from words read unsure).
		for i := 1; i < len(idx); i++ {
			gb.inWord = max(gb.inWord, glyphs[idx[i]].box.Min.X-glyphs[idx[i-1]].box.Max.X)
		}
		// A word space narrower than a third of the font's height is a
		// break the engine misplaced (a file name read as two words one
		// pixel apart): learned, it would turn the font's lookups off.
		if gap := glyphs[idx[0]].box.Min.X - glyphs[max(idx[0]-1, 0)].box.Max.X; prevWord == wi-1 && len(words) > 0 && words[len(words)-1].last == idx[0]-1 && gap*3 >= font {
			gb.between = min(gb.between, gap)
		}
		words = append(words, learned{idx[0], idx[len(idx)-1]})
		prevWord = wi
	}
}

// maxGlyphChars bounds the characters one glyph may be learned as (a
// few drawn touching: `rw`, `--` in a small terminal font).
const maxGlyphChars = 4

// learnWord teaches the glyphs under a word (idx, consecutive): a word
// read sure whose glyphs match its characters one to one, as they are
// (the engine's characters are not needed); otherwise its characters, when
// the engine said them, each tied to the glyph its box's centre is in:
// every glyph must get one to maxGlyphChars characters, in order, and its
// ink lie within their boxes (a pixel of slack each side: the engine's
// boxes are that close), and no other glyph may reach into the word (a
// piece of a glyph the engine read as a whole character would be learned
// as that). A glyph two or more characters fell on (letters drawn
// touching) is learned as all of them. Glyphs are learned from the word
// when it was read sure, else from characters the engine was sure of.
func (d *glyphDict) learnWord(b block, glyphs []glyph, idx []int, paper uint8, baseline int, w Word, whole bool) {
	if whole && w.Conf >= learnConf {
		i := 0
		for _, ch := range w.Text {
			d.put(d.key(b.g, glyphs[idx[i]], paper, baseline), string(ch), w.Conf, true, false)
			i++
		}
		return
	}
	if len(w.chars) == 0 || d.wordsOnly {
		return
	}
	groups, ok := charsOnGlyphs(b, glyphs, idx, w)
	if !ok {
		return
	}
	for j, g := range groups {
		d.learnGlyph(b, glyphs[idx[j]], g, j == 0, paper, baseline, w.Conf)
	}
}

// charsOnGlyphs groups the word's characters by the glyph (of idx) each
// lies on; not ok when the word reaches into a neighbouring glyph, or a
// character lies on no glyph or between two, or a glyph gets none or too
// many.
func charsOnGlyphs(b block, glyphs []glyph, idx []int, w Word) ([][]char, bool) {
	box := w.Box.Sub(b.origin)
	first, last := idx[0], idx[len(idx)-1]
	if (first > 0 && glyphs[first-1].box.Max.X > box.Min.X) || (last+1 < len(glyphs) && glyphs[last+1].box.Min.X < box.Max.X) {
		return nil, false
	}
	groups := make([][]char, len(idx))
	j := 0
	for _, ch := range w.chars {
		c := ch.box.Sub(b.origin)
		cx := (c.Min.X + c.Max.X) / 2
		for j < len(idx) && cx >= glyphs[idx[j]].box.Max.X {
			j++
		}
		if j == len(idx) || cx < glyphs[idx[j]].box.Min.X {
			return nil, false // on no glyph, or between two
		}
		groups[j] = append(groups[j], char{text: ch.text, box: c, conf: ch.conf})
	}
	for _, g := range groups {
		if len(g) == 0 || len(g) > maxGlyphChars {
			return nil, false
		}
	}
	return groups, true
}

// learnGlyph teaches glyph gl the characters g read on it, as sure as the
// word (wordConf) and its characters were; leading says gl is the word's
// first.
func (d *glyphDict) learnGlyph(b block, gl glyph, g []char, leading bool, paper uint8, baseline int, wordConf float64) {
	var within image.Rectangle
	var text string
	sure, fair := true, true
	for _, ch := range g {
		within = within.Union(ch.box)
		text += ch.text
		sure = sure && ch.conf >= charConf
		fair = fair && ch.conf >= fairConf
	}
	bar := text == "_" && underBar(b.g, gl, paper, baseline)
	if !bar && (gl.box.Min.X < within.Min.X-1 || gl.box.Max.X > within.Max.X+1) {
		return
	}
	switch {
	case wordConf >= learnConf:
		d.put(d.key(b.g, gl, paper, baseline), text, wordConf, true, false)
	case bar && fair:
		// An underscore the engine reads where a plain bar lies under
		// the baseline is taught at once, as by a sure word: no other
		// character has that shape, and the engine's doubt about it
		// is only where its box ends (narrower than its ink at a
		// word's edge), which left it half-learned for screens.
		d.put(d.key(b.g, gl, paper, baseline), text, g[0].conf, true, false)
	case leading && startsWithLetter(text):
		// The case the engine gives a word's first letter leans on
		// its language model, sure or not (the l of lib and of
		// lrwxrwxrwx read as L at 0.99): an unsure word teaches no
		// glyph from it; the same letter inside a word does.
	case sure || (fair && !d.noFair):
		conf := 1.0
		for _, ch := range g {
			conf = min(conf, ch.conf)
		}
		d.put(d.key(b.g, gl, paper, baseline), text, conf, false, !sure)
	}
}

// underBar reports whether a glyph is a plain bar lying under the
// baseline: low, at least twice as wide as it is high, and ink across
// every column.
func underBar(g *gray, gl glyph, paper uint8, baseline int) bool {
	r := gl.box
	if r.Dy() > 3 || r.Dx() < 3 || r.Dx() < 2*r.Dy() || r.Min.Y < baseline-1 {
		return false
	}
	for x := r.Min.X; x < r.Max.X; x++ {
		inked := false
		for y := r.Min.Y; y < r.Max.Y && !inked; y++ {
			inked = inkLevel(g.pix[y*g.w+x], paper) >= 2
		}
		if !inked {
			return false
		}
	}
	return true
}

// startsWithLetter reports whether text begins with a letter.
func startsWithLetter(text string) bool {
	r, _ := utf8.DecodeRuneInString(text)
	return unicode.IsLetter(r)
}

// put records key → ch, learned from a word read sure (fromWord) or from
// a sure character of an unsure word. Two words read sure that disagree
// poison the key for good (until it is dropped as least recently used);
// so do two characters. A word read sure outweighs characters: it
// replaces what they taught, and they cannot contradict it (the engine's
// sure misreadings are characters in context, o as 0 in `.s0.`, and they
// would poison a glyph its sure words read right).
func (d *glyphDict) put(k glyphKey, text string, conf float64, fromWord, fair bool) {
	votes := 2
	switch {
	case fromWord:
		votes = 2 * charVotes
	case fair:
		votes = 1
	}
	if el, ok := d.byKey[k]; ok {
		e := el.Value.(*glyphEntry)
		d.lru.MoveToFront(el)
		switch {
		case fromWord && !e.fromWord:
			*e = glyphEntry{key: k, text: text, conf: conf, votes: votes, fromWord: true}
			return
		case !fromWord && e.fromWord:
			return
		case e.text != text && fair && e.usable():
			return // a fairly sure read does not undo a glyph in use
		case e.text != text:
			e.poisoned = true
		}
		e.conf = min(e.conf, conf)
		if !e.poisoned && !e.usable() {
			d.firmed++
		}
		e.votes = min(e.votes+votes, 2*charVotes)
		return
	}
	d.byKey[k] = d.lru.PushFront(&glyphEntry{key: k, text: text, conf: conf, votes: votes, fromWord: fromWord})
	for d.lru.Len() > dictGlyphs {
		old := d.lru.Back()
		d.lru.Remove(old)
		delete(d.byKey, old.Value.(*glyphEntry).key)
	}
}

// keyed cuts a block into its glyphs and keys each; ok is false when the
// block is not one line the dictionary can cut.
func (d *glyphDict) keyed(b block) (glyphs []glyph, keys []glyphKey, ok bool) {
	paper := b.g.background(b.r)
	glyphs, baseline, ok := d.segment(b, paper)
	if !ok {
		return nil, nil, false
	}
	keys = make([]glyphKey, len(glyphs))
	for i, gl := range glyphs {
		keys[i] = d.key(b.g, gl, paper, baseline)
	}
	return glyphs, keys, true
}

// lookup reads a block from the dictionary alone: ok only when it is one
// line whose every glyph is known (and not poisoned) and whose every gap is
// plainly inside a word or between two. Boxes are in screen pixels.
func (d *glyphDict) lookup(b block) ([]Line, bool) {
	glyphs, keys, ok := d.keyed(b)
	if !ok {
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	gb := d.gaps[commonHeight(glyphs)]
	if gb == nil || gb.inWord < 0 || gb.between <= gb.inWord {
		return nil, false
	}
	var line Line
	var cur Word
	var text []byte
	flush := func() {
		cur.Text = string(text)
		cur.Box = cur.Box.Add(b.origin)
		line.Words = append(line.Words, cur)
		line.Box = line.Box.Union(cur.Box)
		cur, text = Word{}, text[:0]
	}
	for i, gl := range glyphs {
		el, ok := d.byKey[keys[i]]
		if !ok || !el.Value.(*glyphEntry).usable() {
			return nil, false
		}
		e := el.Value.(*glyphEntry)
		if i > 0 {
			switch gap := gl.box.Min.X - glyphs[i-1].box.Max.X; {
			case gap >= gb.between:
				flush()
			case gap > gb.inWord:
				return nil, false // neither: the engine decides
			}
		}
		if len(text) == 0 {
			cur.Conf = e.conf
		}
		cur.Conf = min(cur.Conf, e.conf)
		cur.Box = cur.Box.Union(gl.box)
		text = append(text, e.text...)
	}
	flush()
	for i := range glyphs {
		d.lru.MoveToFront(d.byKey[keys[i]])
	}
	return []Line{line}, true
}

// unknown lists the distinct glyphs of a block the dictionary does not
// know yet, with a stand-in for the gaps of its font when those are not
// known either (a line of that font must be read to learn them). ok is
// false when the block cannot be looked up whatever is learned: it is not
// one line, or holds a glyph known to read two ways.
func (d *glyphDict) unknown(b block) (missing []glyphKey, ok bool) {
	glyphs, keys, ok := d.keyed(b)
	if !ok {
		return nil, false
	}
	font := commonHeight(glyphs)
	d.mu.Lock()
	defer d.mu.Unlock()
	seen := map[glyphKey]bool{}
	for _, k := range keys {
		el, known := d.byKey[k]
		if known && el.Value.(*glyphEntry).poisoned {
			return nil, false
		}
		// A glyph taught by one word only is not used yet: still missing.
		if known = known && el.Value.(*glyphEntry).usable(); !known && !seen[k] {
			seen[k] = true
			missing = append(missing, k)
		}
	}
	switch gb := d.gaps[font]; {
	case gb == nil || gb.inWord < 0 || gb.between == noGap:
		missing = append(missing, glyphKey{h: font, dy: -1 << 20})
	case gb.between <= gb.inWord:
		return nil, false // the font's spaces are ambiguous: never looked up
	}
	return missing, true
}

// inUse is the number of glyphs lookups may read.
func (d *glyphDict) inUse() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for el := d.lru.Front(); el != nil; el = el.Next() {
		if el.Value.(*glyphEntry).usable() {
			n++
		}
	}
	return n
}

// progress is a count that grows whenever a glyph is put in use or a
// glyph not yet in use gains a vote.
func (d *glyphDict) progress() int {
	n := d.inUse()
	d.mu.Lock()
	defer d.mu.Unlock()
	return n + d.firmed
}
