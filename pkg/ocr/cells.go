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

// Bounds of the pitch detection.
const (
	minCellW = 4
	maxCellW = maxGlyphSide / 2
	// minCellRuns is how many runs must lie each in one cell before a
	// line's own runs say its grid; twice that many teach the dictionary
	// the grid for lines of the same font that say too little (a word of
	// touching digits, `84440`, is one run).
	minCellRuns = 6
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

// fits reports whether the runs agree with the grid: nearly every run at
// most a cell wide lies within one (a tenth may not: a glyph whose ink
// leaves its cell in some other font).
func (c cellGrid) fits(narrow, inside int) bool { return (narrow-inside)*10 <= narrow }

// findGrid measures a line's cell pitch from its runs: the narrowest width
// w for which exactly one phase puts at least minCellRuns runs each in one
// cell, with the runs a cell wide or narrower nearly all inside one. A
// proportional font's runs fit no such grid, or fit several phases (too
// few or too narrow runs to tell): ok is false and the line is cut at ink
// columns only. inside is the evidence.
func findGrid(runs []glyph) (grid cellGrid, inside int, ok bool) {
	for w := minCellW; w <= maxCellW; w++ {
		found := 0
		for p := 0; p < w; p++ {
			c := cellGrid{w: w, phase: p}
			n, in := c.fit(runs)
			if in >= minCellRuns && c.fits(n, in) {
				found++
				grid, inside = c, in
			}
		}
		switch {
		case found == 1:
			return grid, inside, true
		case found > 1:
			return cellGrid{}, 0, false // the runs do not tell the phase
		}
	}
	return cellGrid{}, 0, false
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

// cells cuts a line's runs at its cell grid: the line's own when its runs
// say it clearly (the dictionary then remembers it for the font, as a
// phase on the screen), else the one remembered for lines of the same
// commonest glyph height when the runs agree with it (a terminal's cells
// are aligned across its lines). Otherwise the runs are kept.
func (d *glyphDict) cells(b block, paper uint8, runs []glyph) []glyph {
	if d.noCells {
		return runs
	}
	font := commonHeight(runs)
	grid, inside, ok := findGrid(runs)
	d.mu.Lock()
	switch kept, known := d.grids[font]; {
	case ok && inside >= 2*minCellRuns:
		d.grids[font] = cellGrid{w: grid.w, phase: mod(grid.phase+b.origin.X, grid.w)}
	case !ok && known:
		grid = cellGrid{w: kept.w, phase: mod(kept.phase-b.origin.X, kept.w)}
		ok = grid.fits(grid.fit(runs))
	}
	d.mu.Unlock()
	if !ok {
		return runs
	}
	return cutCells(b.g, paper, runs, grid)
}

func mod(a, n int) int { return ((a % n) + n) % n }
