package ocr

import (
	"context"
	"image"
	"sync"

	"github.com/dvvhq/dvv/pkg/fb"
)

// Reader keeps the text of one framebuffer mirror up to date. Each Read
// recognises only the areas damaged since the previous one (widened to
// whole lines already known there), and an unchanged mirror is answered
// from what was read before without running the engine.
type Reader struct {
	eng  *Engine
	buf  *fb.Buffer
	lang string
	tr   *fb.Tracker

	mu      sync.Mutex
	lines   []Line
	primed  bool // the whole frame was read once since start or resize
	seq     uint64
	lastRun Stats
	cache   *blockCache
	dict    *glyphDict
}

// Stats describes the work the latest Read did.
type Stats struct {
	Areas  int   // areas recognised (0: answered from the cache)
	Pixels int64 // framebuffer pixels recognised
	Runs   int   // engine runs
	Blocks int   // distinct blocks of content recognised (equal ones once)
	Looked int   // blocks read from the glyph dictionary instead
	Seq    uint64
}

// NewReader starts following buf's damage.
func NewReader(eng *Engine, buf *fb.Buffer, lang string) *Reader {
	r := &Reader{eng: eng, buf: buf, lang: lang, tr: buf.NewTracker(), cache: newBlockCache()}
	if !eng.NoGlyphs {
		r.dict = newGlyphDict()
	}
	return r
}

// Close stops following the mirror.
func (r *Reader) Close() { r.tr.Close() }

// Lang is the language list the reader recognises.
func (r *Reader) Lang() string { return r.lang }

// Read brings the text up to date with the mirror and returns every line,
// in reading order, with the work it took.
func (r *Reader) Read(ctx context.Context) ([]Line, Stats, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.eng.Check(); err != nil {
		return nil, Stats{}, err
	}
	seq := r.buf.Seq()
	rects, resized := r.tr.TakeRects()
	w, h := r.buf.Size()
	frame := image.Rect(0, 0, w, h)
	if !r.primed || resized {
		r.lines = nil
		rects = []image.Rectangle{frame}
	}
	if len(rects) == 0 {
		return r.lines, Stats{Seq: r.seq}, nil
	}
	changed := cluster(rects)
	// Lines the changes touch are read again; the rest stay as they are.
	var kept, dropped []Line
	for _, l := range r.lines {
		if touchesAny(l.Box, changed) {
			dropped = append(dropped, l)
		} else {
			kept = append(kept, l)
		}
	}
	areas := r.areas(changed, dropped, frame)
	read, wk, err := r.recognize(ctx, areas)
	if err != nil {
		// What was damaged is not known any more: read everything next time.
		r.primed = false
		return nil, Stats{}, err
	}
	// Words from unchanged text the areas happened to include are already
	// known (whole, not cut by an area's edge): keep only what changed.
	relevant := changed
	for _, l := range dropped {
		relevant = append(relevant, l.Box)
	}
	read = only(read, relevant)
	r.lines = append(kept, read...)
	readingOrder(r.lines)
	r.lines = joinRows(r.lines)
	r.primed, r.seq = true, seq
	st := Stats{Areas: len(areas), Seq: seq, Runs: wk.runs, Blocks: wk.blocks, Looked: wk.looked}
	for _, a := range areas {
		st.Pixels += int64(a.Dx()) * int64(a.Dy())
	}
	r.lastRun = st
	return r.lines, st, nil
}

// clusterGap joins damaged tiles this close into one area: one engine run
// per read costs a fixed start-up anyway, but joined areas keep a dialog's
// lines together.
const clusterGap = 24

// margin widens an area so glyphs cut by a tile edge are read whole.
const margin = 4

// maxRects bounds the clustering work; beyond it the damage is one area.
const maxRects = 1024

// cluster joins damaged tile runs closer than clusterGap.
func cluster(rects []image.Rectangle) []image.Rectangle {
	if len(rects) > maxRects {
		var u image.Rectangle
		for _, x := range rects {
			u = u.Union(x)
		}
		return []image.Rectangle{u}
	}
	out := append([]image.Rectangle(nil), rects...)
	for merged := true; merged; {
		merged = false
		next := out[:0]
		for _, a := range out {
			joined := false
			for j := range next {
				if next[j].Inset(-clusterGap).Overlaps(a) {
					next[j], joined, merged = next[j].Union(a), true, true
					break
				}
			}
			if !joined {
				next = append(next, a)
			}
		}
		out = next
	}
	return out
}

// areas turns changed areas into what the engine reads: each widened by a
// margin and pushed out past glyphs its edge cuts, joined with the known
// lines it replaces (so they are read whole), overlapping ones merged.
func (r *Reader) areas(changed []image.Rectangle, dropped []Line, frame image.Rectangle) []image.Rectangle {
	out := make([]image.Rectangle, len(changed))
	r.buf.Read(func(pix []byte, stride, w, h int, _ uint64) {
		// frame was read before the lock: a shrink since then must not
		// send the growth past the pixels there are now.
		now := frame.Intersect(image.Rect(0, 0, w, h))
		for i, x := range changed {
			out[i] = growToQuiet(pix, stride, x.Inset(-margin).Intersect(now), now)
		}
	})
	for i := range out {
		for _, l := range dropped {
			if l.Box.Overlaps(changed[i]) {
				out[i] = out[i].Union(l.Box)
			}
		}
	}
	for merged := true; merged; {
		merged = false
		next := out[:0]
		for _, a := range out {
			joined := false
			for j := range next {
				if next[j].Overlaps(a) {
					next[j], joined, merged = next[j].Union(a), true, true
					break
				}
			}
			if !joined {
				next = append(next, a)
			}
		}
		out = next
	}
	return out
}

// only keeps the words that overlap one of the rectangles.
func only(lines []Line, rects []image.Rectangle) []Line {
	var out []Line
	for _, l := range lines {
		var nl Line
		for _, w := range l.Words {
			if touchesAny(w.Box, rects) {
				nl.Words = append(nl.Words, w)
				nl.Box = nl.Box.Union(w.Box)
			}
		}
		if len(nl.Words) > 0 {
			out = append(out, nl)
		}
	}
	return out
}

func touchesAny(b image.Rectangle, areas []image.Rectangle) bool {
	for _, a := range areas {
		if b.Overlaps(a) {
			return true
		}
	}
	return false
}

// recognize reads the areas: each is cut into blocks of content, and all
// blocks go to the engine together (one run per canvas, not per area).
func (r *Reader) recognize(ctx context.Context, areas []image.Rectangle) ([]Line, work, error) {
	var blocks []block
	for _, a := range areas {
		img, _ := r.buf.Snapshot(a)
		blocks = append(blocks, segment(img, a.Min)...)
	}
	lines, w, err := r.eng.recognizeBlocks(ctx, blocks, r.lang, r.cache, r.dict)
	return dropChars(lines), w, err
}

// maxGrow bounds how far growToQuiet pushes one side of an area.
const maxGrow = 24

// growToQuiet pushes each side of a out while pixels on its edge differ
// (a glyph or a line of text may be crossing it), so the engine never sees
// text cut in half by a tile edge. On a busy background it stops after
// maxGrow pixels.
func growToQuiet(pix []byte, stride int, a, frame image.Rectangle) image.Rectangle {
	const step = 8
	uniform := func(x0, y0, x1, y1 int) bool { // the strip [x0,x1)x[y0,y1) is one colour
		first := pix[y0*stride+x0*4 : y0*stride+x0*4+3]
		for y := y0; y < y1; y++ {
			row := pix[y*stride:]
			for x := x0; x < x1; x++ {
				p := row[x*4 : x*4+3]
				if p[0] != first[0] || p[1] != first[1] || p[2] != first[2] {
					return false
				}
			}
		}
		return true
	}
	if a.Empty() {
		return a
	}
	for g := 0; g < maxGrow && a.Min.X > frame.Min.X && !uniform(a.Min.X, a.Min.Y, a.Min.X+1, a.Max.Y); g += step {
		a.Min.X = max(a.Min.X-step, frame.Min.X)
	}
	for g := 0; g < maxGrow && a.Max.X < frame.Max.X && !uniform(a.Max.X-1, a.Min.Y, a.Max.X, a.Max.Y); g += step {
		a.Max.X = min(a.Max.X+step, frame.Max.X)
	}
	for g := 0; g < maxGrow && a.Min.Y > frame.Min.Y && !uniform(a.Min.X, a.Min.Y, a.Max.X, a.Min.Y+1); g += step {
		a.Min.Y = max(a.Min.Y-step, frame.Min.Y)
	}
	for g := 0; g < maxGrow && a.Max.Y < frame.Max.Y && !uniform(a.Min.X, a.Max.Y-1, a.Max.X, a.Max.Y); g += step {
		a.Max.Y = min(a.Max.Y+step, frame.Max.Y)
	}
	return a
}
