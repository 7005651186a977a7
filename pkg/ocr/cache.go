package ocr

import (
	"container/list"
	"hash/maphash"
	"image"
	"sync"
)

// blockCache remembers what a block of pixels read as, by the block's
// content: a repaint of what was already on the screen (a window raised
// again, an expose, a terminal scrolling its lines up, a dialog closed and
// shown again) is answered without recognising it again. Bounded by
// entries and by words; least recently used entries go first.
type blockCache struct {
	mu    sync.Mutex
	seed  maphash.Seed
	byKey map[blockKey]*list.Element
	lru   list.List // of *cacheEntry, most recent at the front
	words int
}

type blockKey struct {
	sum   uint64
	w, h  int
	scale int
}

type cacheEntry struct {
	key   blockKey
	lines []Line // boxes relative to the block's top-left pixel
	words int
}

// Bounds of one reader's cache.
const (
	cacheEntries = 4096
	cacheWords   = 64 << 10
)

func newBlockCache() *blockCache {
	return &blockCache{seed: maphash.MakeSeed(), byKey: map[blockKey]*list.Element{}}
}

// dedupSeed hashes blocks for a read without a cache (equal blocks of one
// read are still recognised once).
var dedupSeed = maphash.MakeSeed()

// contentKey hashes a block's grey pixels, its size and the scale it is
// read at.
func contentKey(seed maphash.Seed, b block, scale int) blockKey {
	var h maphash.Hash
	h.SetSeed(seed)
	for y := b.r.Min.Y; y < b.r.Max.Y; y++ {
		h.Write(b.g.pix[y*b.g.w+b.r.Min.X : y*b.g.w+b.r.Max.X])
	}
	return blockKey{sum: h.Sum64(), w: b.r.Dx(), h: b.r.Dy(), scale: scale}
}

// get returns the block's lines placed on the screen, if it was read.
func (c *blockCache) get(k blockKey, b block) ([]Line, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return place(el.Value.(*cacheEntry).lines, b.r.Min.Add(b.origin)), true
}

// put remembers lines read on the screen as the block's.
func (c *blockCache) put(k blockKey, b block, lines []Line) {
	rel := place(lines, b.r.Min.Add(b.origin).Mul(-1))
	n := 0
	for _, l := range rel {
		n += len(l.Words)
	}
	if n > cacheWords {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		c.words -= el.Value.(*cacheEntry).words
		c.lru.Remove(el)
	}
	c.byKey[k] = c.lru.PushFront(&cacheEntry{key: k, lines: rel, words: n})
	c.words += n
	for c.lru.Len() > cacheEntries || c.words > cacheWords {
		old := c.lru.Back().Value.(*cacheEntry)
		c.lru.Remove(c.lru.Back())
		delete(c.byKey, old.key)
		c.words -= old.words
	}
}

// place returns a copy of lines moved by d.
func place(lines []Line, d image.Point) []Line {
	out := make([]Line, len(lines))
	for i, l := range lines {
		out[i] = Line{Box: l.Box.Add(d), Words: make([]Word, len(l.Words))}
		for j, w := range l.Words {
			w.Box = w.Box.Add(d)
			w.chars = nil // learned from once, where first read
			out[i].Words[j] = w
		}
	}
	return out
}
