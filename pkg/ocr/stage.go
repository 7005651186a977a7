package ocr

import "container/heap"

// A screen of new text in a font the dictionary has not learned yet would
// all go to the engine, at its pace (2 to 2.5 characters a millisecond a
// core). But a screen holds the same few dozen glyphs many times over: the
// engine need only read the lines that hold each unknown glyph once, and
// the dictionary reads the rest with what those lines taught. teachFirst
// picks those lines; recognizeBlocks reads them first, then looks the others
// up, and picks again among what still cannot be looked up (the engine is
// not always sure enough of a glyph to teach it: a file name's dash, say,
// is learned from the third line that holds one). The last round reads
// whatever is left: the maxRounds-th, or the one after a round that taught
// nothing (no glyph put in use, no block looked up: a font whose glyphs
// touch, which the dictionary cannot learn, costs one round more than no
// staging).

// maxRounds bounds the engine rounds of one read: the rounds before the
// last are small, so each adds little more than the engine's call.
const maxRounds = 6

// stageShare is the largest share of the work a first stage may be: past
// it, two stages cost more than one (the second waits for the first).
const stageShare = 0.6

// teachCopies is how many blocks of the first stage should hold each
// unknown glyph: the engine is not always sure enough of a word to teach
// its glyphs, and a second copy in another word often is.
const teachCopies = 2

// teachFirst splits the pending blocks (indexes in todo) the engine would
// read into first, the blocks to read now (those that cannot be looked up
// at all, those whose every glyph is known but that still failed a lookup,
// and a small set that holds every glyph the dictionary does not know),
// and later, the blocks to look up once first has been learned from. later
// is empty when staging would not pay.
func teachFirst(d *glyphDict, todo []block, pending []int) (first, later []int) {
	if len(pending) < 3 {
		return pending, nil
	}
	var cands candidates
	total, firstCost := 0, 0
	for _, i := range pending {
		b := todo[i]
		total += blockCost(b)
		missing, ok := d.unknown(b)
		if !ok || len(missing) == 0 {
			first = append(first, i)
			firstCost += blockCost(b)
			continue
		}
		cands = append(cands, &candidate{i: i, missing: missing, gain: len(missing)})
	}
	// Greedy cover: take the block holding the most glyphs not yet covered
	// teachCopies times, until every unknown glyph is. Gains only fall as
	// glyphs get covered, so a block's stale gain bounds its real one (lazy
	// greedy).
	covered := map[glyphKey]int{}
	heap.Init(&cands)
	for cands.Len() > 0 {
		c := heap.Pop(&cands).(*candidate)
		gain := 0
		for _, k := range c.missing {
			if covered[k] < teachCopies {
				gain++
			}
		}
		if gain == 0 {
			later = append(later, c.i)
			continue
		}
		if cands.Len() > 0 && gain < cands[0].gain {
			c.gain = gain
			heap.Push(&cands, c)
			continue
		}
		for _, k := range c.missing {
			covered[k]++
		}
		first = append(first, c.i)
		firstCost += blockCost(todo[c.i])
	}
	if len(later) == 0 || float64(firstCost) > stageShare*float64(total) {
		return pending, nil
	}
	return first, later
}

// candidate is a block that the dictionary could read once it knows the
// glyphs missing from it.
type candidate struct {
	i       int        // index in todo
	missing []glyphKey // distinct
	gain    int        // glyphs of missing not yet covered, as last counted
}

// candidates is a max-heap by gain (then the earlier block, so the choice
// is the same from one read of a screen to the next).
type candidates []*candidate

func (h candidates) Len() int { return len(h) }
func (h candidates) Less(i, j int) bool {
	if h[i].gain != h[j].gain {
		return h[i].gain > h[j].gain
	}
	return h[i].i < h[j].i
}
func (h candidates) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candidates) Push(x any)   { *h = append(*h, x.(*candidate)) }
func (h *candidates) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
