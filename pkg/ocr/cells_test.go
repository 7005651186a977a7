package ocr

import (
	"image"
	"testing"
)

// spans are glyphs' ink columns within an 8-pixel cell, [from, to), as
// DejaVu Sans Mono 10 pt's are on xterm: 'c' fills its cell.
var spans = map[rune][2]int{'a': {0, 7}, 'b': {1, 8}, 'c': {0, 8}, 'd': {2, 6}, 'e': {1, 7}}

// cellLine draws text in 8-pixel cells from x = phase, each glyph its span
// of columns over 10 rows (the rows told apart by the glyph, so every glyph
// has its own pixels), on white paper.
func cellLine(phase int, text string) (*gray, block) {
	g := &gray{w: phase + 8*len(text) + 4, h: 14}
	g.pix = make([]uint8, g.w*g.h)
	for i := range g.pix {
		g.pix[i] = 0xff
	}
	for k, ch := range text {
		s, ok := spans[ch]
		if !ok {
			continue
		}
		for x := phase + k*8 + s[0]; x < phase+k*8+s[1]; x++ {
			for y := 2; y < 12; y++ {
				if y == 2 || y == 11 || x == phase+k*8+s[0] || (y+int(ch))%4 == 0 {
					g.pix[y*g.w+x] = 0
				}
			}
		}
	}
	return g, block{g: g, r: image.Rect(0, 0, g.w, g.h)}
}

func TestFindGrid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phase int
		text  string
		ok    bool
	}{
		{"8-pixel cells", 3, "ad da cd ed ac ad ea de", true},
		{"touching letters among them", 5, "ba ad cd ebad dc ae ad ed", true},
		{"too few glyphs to tell", 3, "ad ca ed", false},
		{"most letters touching", 3, "ba ba ba ba ba ba ba ba ba ba ba ba ba de", false},
		{"every letter touches: no run within a cell", 3, "cccccccc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, b := cellLine(tc.phase, tc.text)
			runs, _ := inkRuns(g, b.r, 0xff)
			grid, _, ok := findGrid(runs)
			if ok != tc.ok || (ok && (grid.w != 8 || grid.phase != tc.phase)) {
				t.Fatalf("grid %+v ok %v; want w 8 phase %d ok %v", grid, ok, tc.phase, tc.ok)
			}
		})
	}
	// Proportional: glyphs of varying advance fit no single phase.
	g := &gray{w: 200, h: 14, pix: make([]uint8, 200*14)}
	for i := range g.pix {
		g.pix[i] = 0xff
	}
	x := 2
	for i, adv := range []int{7, 4, 9, 6, 11, 5, 8, 3, 10, 7, 6, 9, 4, 12, 5, 8} {
		for c := x; c < x+adv-1-i%2; c++ {
			for y := 2; y < 12; y++ {
				g.pix[y*g.w+c] = 0
			}
		}
		x += adv + 1
	}
	runs, _ := inkRuns(g, image.Rect(0, 0, g.w, g.h), 0xff)
	if grid, _, ok := findGrid(runs); ok {
		t.Fatalf("a proportional line was given the grid %+v", grid)
	}
}

func TestCutCells(t *testing.T) {
	// b ends at its cell's edge and a starts at its own: one run.
	g, b := cellLine(3, "ba d")
	runs, _ := inkRuns(g, b.r, 0xff)
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	cut := cutCells(g, 0xff, runs, cellGrid{w: 8, phase: 3})
	want := []image.Rectangle{image.Rect(4, 2, 11, 12), image.Rect(11, 2, 18, 12), image.Rect(29, 2, 33, 12)}
	if len(cut) != len(want) {
		t.Fatalf("cut into %v", cut)
	}
	for i := range want {
		if cut[i].box != want[i] {
			t.Fatalf("piece %d is %v, want %v (all: %v)", i, cut[i].box, want[i], cut)
		}
	}
}

// TestDictCutsTouchingLettersAtCells: glyphs learned apart are known when
// drawn touching on a monospaced line, which reads as drawn; with cells off
// the touching pair is a glyph never seen and the line is not looked up.
func TestDictCutsTouchingLettersAtCells(t *testing.T) {
	for _, noCells := range []bool{false, true} {
		d := newGlyphDict()
		d.noCells = noCells
		// The engine's read of a line where nothing touches.
		taught := "ad da bd cd ed ad da bd cd ed"
		g, b := cellLine(3, taught)
		runs, _ := inkRuns(g, b.r, 0xff)
		var l Line
		i := 0
		for _, w := range []string{"ad", "da", "bd", "cd", "ed", "ad", "da", "bd", "cd", "ed"} {
			l.Words = append(l.Words, Word{Text: w, Box: runs[i].box.Union(runs[i+1].box), Conf: 0.97})
			i += 2
		}
		d.learn(b, []Line{l})
		_, b2 := cellLine(3, "ba da ebad da")
		lines, ok := d.lookup(b2)
		if noCells {
			if ok {
				t.Fatalf("cells off: a line with letters touching was read %q", lines[0].Text())
			}
			continue
		}
		if !ok || lines[0].Text() != "ba da ebad da" {
			t.Fatalf("a line of known letters, some touching, read %v, %v", lines, ok)
		}
		_, b3 := cellLine(3, "ba da cbad da")
		if _, ok := d.lookup(b3); ok {
			t.Fatal("a line holding a glyph never seen (c touching b) was looked up")
		}
	}
}

// FuzzCells: any picture segments, cut at cells or not, into glyphs inside
// the block, left to right and not overlapping, each piece of a run within
// one cell of the grid found (if any).
func FuzzCells(f *testing.F) {
	g, _ := cellLine(3, "ba ad cd ebad dc ae ad ed")
	f.Add(g.pix, uint8(g.w), uint8(0xff))
	f.Add([]byte{0, 255, 0, 255, 0, 255, 0, 255, 0}, uint8(3), uint8(0))
	f.Fuzz(func(t *testing.T, pix []byte, width, paper uint8) {
		w := int(width)
		if w == 0 || len(pix) < w {
			return
		}
		g := &gray{pix: pix[:len(pix)/w*w], w: w, h: len(pix) / w}
		r := image.Rect(0, 0, g.w, g.h)
		runs, ok := inkRuns(g, r, paper)
		if !ok {
			return
		}
		if grid, _, ok := findGrid(runs); ok {
			for _, p := range cutCells(g, paper, runs, grid) {
				if grid.cell(p.box.Min.X) != grid.cell(p.box.Max.X-1) {
					t.Fatalf("piece %v crosses a cell of %+v", p.box, grid)
				}
			}
		}
		glyphs, _, ok := newGlyphDict().segment(block{g: g, r: r}, paper)
		if !ok {
			return
		}
		for i, gl := range glyphs {
			if gl.box.Empty() || !gl.box.In(r) || (i > 0 && gl.box.Min.X < glyphs[i-1].box.Max.X) {
				t.Fatalf("glyph %d at %v (previous %v) in %v", i, gl.box, glyphs[max(i-1, 0)].box, r)
			}
		}
	})
}

// TestKeptGridOnlyWhereItWasSaid: a line too short to say its grid (one
// run of two letters touching) is cut at the grid a long line of the same
// font said, under that line, and not far away on the screen.
func TestKeptGridOnlyWhereItWasSaid(t *testing.T) {
	d := newGlyphDict()
	g, long := cellLine(3, "ad da cd ed ac ad ea de")
	runs, _ := inkRuns(g, long.r, 0xff)
	d.cells(long, 0xff, runs)
	if len(d.grids) != 1 {
		t.Fatalf("grids remembered: %v", d.grids)
	}
	gs, short := cellLine(3, "ba")
	runs, _ = inkRuns(gs, short.r, 0xff)
	if len(runs) != 1 {
		t.Fatalf("%d runs, want b and a touching", len(runs))
	}
	for _, tc := range []struct {
		origin image.Point
		pieces int
	}{
		{image.Pt(0, 16), 2},   // the terminal's next line
		{image.Pt(16, 32), 2},  // two cells in, two lines down
		{image.Pt(0, 400), 1},  // far below
		{image.Pt(900, 0), 1},  // beside it
		{image.Pt(-40, 16), 1}, // partly left of it
	} {
		short.origin = tc.origin
		if got := len(d.cells(short, 0xff, runs)); got != tc.pieces {
			t.Errorf("at %v: %d pieces, want %d", tc.origin, got, tc.pieces)
		}
	}
	// A line beside it with six runs in the grid's cells (half a grid's
	// evidence) joins the grid's area: a short line under it is then cut.
	gm, mid := cellLine(3, "ad da ce")
	mid.origin = image.Pt(904, 0)
	mruns, _ := inkRuns(gm, mid.r, 0xff)
	d.cells(mid, 0xff, mruns)
	short.origin = image.Pt(904, 16)
	if got := len(d.cells(short, 0xff, runs)); got != 2 {
		t.Errorf("under a line that joined the grid's area: %d pieces, want 2", got)
	}
}
