package ocr

import "image"

// A terminal draws every character in a cell of one fixed width, and in a
// small anti-aliased font neighbours touch (`rw`, `8444`): their ink is one
// run of columns, a glyph the dictionary has never seen, though each of its
// letters alone is known. On such a line the runs' edges fall on a grid;
// cutting the wide runs at the grid's cell edges gives back one glyph a
// cell. On a real xterm (DejaVu Sans Mono 10 pt, 8-pixel cells) no glyph's
// ink, not even its faintest edge, leaves its cell, so a cut cell holds the
// same pixels as the letter drawn alone and has the same key. docs/ocr.md
// has the measurements.

// cellGrid is a line's cells: [phase+k*w, phase+(k+1)*w) in the grey
// picture's columns.
type cellGrid struct{ w, phase int }

// keptGrid is a grid the dictionary remembers for a font: its phase in
// screen columns, and the screen area of the lines that said it (a
// terminal's text), the only place it is used for lines that say too
// little of their own: a proportional line of the same height elsewhere
// (a dialog's word of one run of touching letters) is not cut at a
// terminal's cells.
type keptGrid struct {
	cellGrid
	area image.Rectangle
}

// keptSlack is how far past the lines that said a grid it still holds
// (rows above and below them: a terminal's next lines).
const keptSlack = maxGlyphSide

// Bounds of the pitch detection.
const (
	minCellW = 4
	maxCellW = maxGlyphSide / 2
	// minCellRuns is how many runs must lie each in one cell before a
	// line's own runs say its grid, which the dictionary then remembers
	// for lines of the same font that say too little (a word of touching
	// digits, `84440`, is one run). With 6, `-rw-r--r--` in 10-pixel cells
	// fitted 5-pixel ones (its six dashes whole) and its r's were cut in
	// two.
	minCellRuns = 12
)

// cell is the index of the cell holding column x.
func (c cellGrid) cell(x int) int {
	d := x - c.phase
	if d < 0 {
		return (d - c.w + 1) / c.w
	}
	return d / c.w
}

// fit counts the runs at most one cell wide (narrow) and those of them
// that lie within one cell.
func (c cellGrid) fit(runs []glyph) (narrow, inside int) {
	for _, r := range runs {
		if r.box.Dx() > c.w {
			continue
		}
		narrow++
		if c.cell(r.box.Min.X) == c.cell(r.box.Max.X-1) {
			inside++
		}
	}
	return narrow, inside
}

// fits reports whether the runs agree with the grid: every run at most a
// cell wide lies within one. A tenth let a grid several cells wide fit a
// long line (its edges fall in enough gaps by chance); on the real xterm
// no glyph's ink leaves its cell, and a font whose glyphs do is cut at
// ink columns only.
func (c cellGrid) fits(narrow, inside int) bool { return narrow == inside }

// findGrid measures a line's cell pitch from its runs. A width w is a
// candidate when exactly one phase puts at least minCellRuns runs, and at
// least half the line's, each in one cell, with every run a cell wide or
// narrower inside one (most letters do not touch their neighbours: a
// width that holds only the dots and dashes whole, 5 for a 10-pixel
// pitch, would cut every letter in two); of the candidates, the one with
// the most runs inside a cell wins (the wider on a tie). A multiple of the pitch fits as many phases as it
// holds cells, so it is never a candidate; a divisor of it (4 for 8) can
// be, through glyphs narrower than half a cell (`-`, `.`), but holds fewer
// runs whole. A proportional font's runs fit no grid, or several phases:
// ok is false and the line is cut at ink columns only. inside is the
// evidence.
func findGrid(runs []glyph) (grid cellGrid, inside int, ok bool) {
	// A monospaced font's cell is narrower than its tallest glyph (DejaVu
	// Sans Mono: 8 pixels for glyphs 10 to 12 high): a wider grid fits
	// short lines by chance, and was measured to.
	tallest := 0
	for _, r := range runs {
		tallest = max(tallest, r.box.Dy())
	}
	for w := minCellW; w <= min(maxCellW, tallest); w++ {
		found, best := 0, cellGrid{}
		bestIn := 0
		for p := 0; p < w; p++ {
			c := cellGrid{w: w, phase: p}
			n, in := c.fit(runs)
			if in >= minCellRuns && in*2 >= len(runs) && c.fits(n, in) {
				found++
				best, bestIn = c, in
			}
		}
		if found == 1 && bestIn >= inside {
			grid, inside, ok = best, bestIn, true
		}
	}
	return grid, inside, ok
}

// cutCells cuts every run wider than one cell at the grid's cell edges,
// each piece trimmed to its ink rows. A run within one cell is kept whole.
func cutCells(g *gray, paper uint8, runs []glyph, c cellGrid) []glyph {
	out := make([]glyph, 0, len(runs))
	for _, r := range runs {
		first, last := c.cell(r.box.Min.X), c.cell(r.box.Max.X-1)
		if first == last {
			out = append(out, r)
			continue
		}
		for k := first; k <= last; k++ {
			x0 := max(r.box.Min.X, c.phase+k*c.w)
			x1 := min(r.box.Max.X, c.phase+(k+1)*c.w)
			// Every column of a run holds ink, so every piece does.
			piece := inkRows(g, image.Rect(x0, r.box.Min.Y, x1, r.box.Max.Y), paper)
			out = append(out, glyph{box: piece})
		}
	}
	return out
}

// cells cuts a line's runs at its cell grid: the one remembered for lines
// of the same commonest glyph height when its runs agree with it and the
// line is where that grid was said, or says it itself with half as many
// runs as a grid needs (a terminal's cells are aligned across
// its lines, and a short line, or one of dashes and r's, says little of
// its own), else the line's own when its
// runs say it clearly (then remembered for the font, as a phase on the
// screen). Otherwise the runs are kept.
func (d *glyphDict) cells(b block, paper uint8, runs []glyph) []glyph {
	if d.noCells {
		return runs
	}
	font := commonHeight(runs)
	on := b.r.Add(b.origin) // the block on the screen
	d.mu.Lock()
	kept, known := d.grids[font]
	d.mu.Unlock()
	if known {
		grid := cellGrid{w: kept.w, phase: mod(kept.phase-b.origin.X, kept.w)}
		near := on.In(image.Rect(kept.area.Min.X, kept.area.Min.Y-keptSlack, kept.area.Max.X, kept.area.Max.Y+keptSlack))
		narrow, inside := grid.fit(runs)
		// A line elsewhere joins the grid's area when half its runs and
		// at least minCellRuns/2 lie in its cells (a terminal's
		// `-rw-r--r--`, left of the file names that said the grid).
		joins := inside*2 >= minCellRuns && inside*2 >= len(runs)
		if grid.fits(narrow, inside) && (near || joins) {
			if !near {
				d.mu.Lock()
				if k, ok := d.grids[font]; ok && k.cellGrid == kept.cellGrid {
					k.area = k.area.Union(on)
					d.grids[font] = k
				}
				d.mu.Unlock()
			}
			return cutCells(b.g, paper, runs, grid)
		}
	}
	grid, _, ok := findGrid(runs)
	if ok {
		screen := cellGrid{w: grid.w, phase: mod(grid.phase+b.origin.X, grid.w)}
		d.mu.Lock()
		if kept, known := d.grids[font]; known && kept.cellGrid == screen {
			on = on.Union(kept.area)
		}
		d.grids[font] = keptGrid{cellGrid: screen, area: on}
		d.mu.Unlock()
	}
	if !ok {
		return runs
	}
	return cutCells(b.g, paper, runs, grid)
}

func mod(a, n int) int { return ((a % n) + n) % n }
