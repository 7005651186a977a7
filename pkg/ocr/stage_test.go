package ocr

import (
	"image"
	"slices"
	"testing"
)

// tinyBlocks draws each text as its own line (tinyFont) and returns the
// blocks.
func tinyBlocks(texts ...string) []block {
	var out []block
	for _, s := range texts {
		_, b, _ := drawLine(s, 1, 4)
		out = append(out, b)
	}
	return out
}

// keysOf is the set of glyph keys of a block.
func keysOf(d *glyphDict, b block) map[glyphKey]bool {
	paper := b.g.background(b.r)
	glyphs, baseline, _ := segmentLine(b.g, b.r, paper)
	out := map[glyphKey]bool{}
	for _, gl := range glyphs {
		out[d.key(b.g, gl, paper, baseline)] = true
	}
	return out
}

func TestTeachFirstCoversEveryUnknownGlyph(t *testing.T) {
	d := newGlyphDict()
	blocks := tinyBlocks("bad dab", "abe dee", "ix ax", "bad bed", "dab ix", "bee dad", "axe bid", "aid", "dead bead", "ix ix ix", "ebb", "bid bad")
	first, later := teachFirst(d, blocks, all(blocks))
	if len(later) == 0 {
		t.Fatalf("everything read first (%d blocks): staging never pays", len(first))
	}
	all := append(slices.Clone(first), later...)
	slices.Sort(all)
	for i := range blocks {
		if i >= len(all) || all[i] != i {
			t.Fatalf("first %v and later %v are not a split of %d blocks", first, later, len(blocks))
		}
	}
	// Every glyph of a later block is held by teachCopies first blocks, or
	// by every first-able block that holds it.
	for _, i := range later {
		for k := range keysOf(d, blocks[i]) {
			in, avail := 0, 0
			for j, b := range blocks {
				if keysOf(d, b)[k] {
					avail++
					if slices.Contains(first, j) {
						in++
					}
				}
			}
			if in < min(teachCopies, avail) {
				t.Errorf("a glyph of later block %d is in %d first blocks (of %d holding it)", i, in, avail)
			}
		}
	}
	if 2*len(first) > len(blocks) {
		t.Errorf("%d of %d blocks read first", len(first), len(blocks))
	}
}

func TestTeachFirstReadsWhatCannotBeLookedUp(t *testing.T) {
	d := newGlyphDict()
	// 'c' and 'o' share a bitmap: learned as both, it is poisoned.
	_, b, boxes := drawLine("cab", 1, 4)
	d.learn(b, readAs("cab", boxes, 0.99))
	_, b, boxes = drawLine("oba", 1, 4)
	d.learn(b, readAs("oba", boxes, 0.99))
	blocks := tinyBlocks("bad dab", "abe dee", "bad bed", "dab bed", "bee dad", "cab", "dead bead", "bad dab dab")
	two := &gray{w: 12, h: 14, pix: make([]uint8, 12*14)} // two lines of ink
	for i := range two.pix {
		if y := i / 12; y != 3 && y != 4 && y != 10 && y != 11 {
			two.pix[i] = 0xff
		}
	}
	blocks = append(blocks, block{g: two, r: image.Rect(0, 0, 12, 14)})
	first, later := teachFirst(d, blocks, all(blocks))
	if len(later) == 0 {
		t.Fatal("everything read first")
	}
	for _, must := range []int{5, len(blocks) - 1} {
		if !slices.Contains(first, must) {
			t.Errorf("block %d (poisoned glyph, or two lines) is left to the dictionary: first %v", must, first)
		}
	}
}

func TestTeachFirstDoesNotStageWhatWouldNotPay(t *testing.T) {
	d := newGlyphDict()
	for _, blocks := range [][]block{
		tinyBlocks("bad", "dab"),            // too few to split
		tinyBlocks("bad", "ice", "ox", "e"), // each holds glyphs no other has
	} {
		first, later := teachFirst(d, blocks, all(blocks))
		if len(later) != 0 || len(first) != len(blocks) {
			t.Errorf("%d blocks split as first %v, later %v", len(blocks), first, later)
		}
	}
}

func all(blocks []block) []int {
	out := make([]int, len(blocks))
	for i := range out {
		out[i] = i
	}
	return out
}
