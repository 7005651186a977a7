package ocr

import (
	"context"
	"image"
	"sort"
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
}

// Stats describes the work the latest Read did.
type Stats struct {
	Areas  int   // areas recognised (0: answered from the cache)
	Pixels int64 // framebuffer pixels recognised
	Seq    uint64
}

// NewReader starts following buf's damage.
func NewReader(eng *Engine, buf *fb.Buffer, lang string) *Reader {
	return &Reader{eng: eng, buf: buf, lang: lang, tr: buf.NewTracker()}
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
	areas := r.areas(rects, frame)
	kept := r.lines[:0:0]
	for _, l := range r.lines {
		if !touchesAny(l.Box, areas) {
			kept = append(kept, l)
		}
	}
	read, err := r.recognize(ctx, areas)
	if err != nil {
		// What was damaged is not known any more: read everything next time.
		r.primed = false
		return nil, Stats{}, err
	}
	r.lines = append(kept, read...)
	sort.SliceStable(r.lines, func(i, j int) bool {
		a, b := r.lines[i].Box, r.lines[j].Box
		if a.Max.Y <= b.Min.Y || b.Max.Y <= a.Min.Y {
			return a.Min.Y < b.Min.Y
		}
		return a.Min.X < b.Min.X
	})
	r.primed, r.seq = true, seq
	st := Stats{Areas: len(areas), Seq: seq}
	for _, a := range areas {
		st.Pixels += int64(a.Dx()) * int64(a.Dy())
	}
	r.lastRun = st
	return r.lines, st, nil
}

// clusterGap joins damaged tiles this close into one area: one engine run
// per area costs a fixed start-up, so a dialog should be one run, while a
// clock in a corner and a dialog in the middle stay two.
const clusterGap = 24

// margin widens an area so glyphs cut by a tile edge are read whole.
const margin = 4

// maxRects bounds the clustering work; beyond it the damage is one area.
const maxRects = 1024

// areas turns damaged tile runs into the areas to recognise: near runs
// joined, widened by a margin and by every known line they touch (so a
// line is always read whole), clipped to the frame, overlapping ones merged.
func (r *Reader) areas(rects []image.Rectangle, frame image.Rectangle) []image.Rectangle {
	if len(rects) > maxRects {
		var u image.Rectangle
		for _, x := range rects {
			u = u.Union(x)
		}
		rects = []image.Rectangle{u}
	}
	out := make([]image.Rectangle, len(rects))
	r.buf.Read(func(pix []byte, stride, w, h int, _ uint64) {
		for i, x := range rects {
			out[i] = growToQuiet(pix, stride, x.Inset(-margin).Intersect(frame), frame)
		}
	})
	for changed := true; changed; {
		changed = false
		for i := range out {
			a := out[i]
			for _, l := range r.lines {
				if l.Box.Overlaps(a) && !l.Box.In(a) {
					a = a.Union(l.Box)
				}
			}
			if a != out[i] {
				out[i], changed = a, true
			}
		}
		merged := out[:0]
		for _, a := range out {
			joined := false
			for j := range merged {
				if merged[j].Inset(-clusterGap).Overlaps(a) {
					merged[j], joined, changed = merged[j].Union(a), true, true
					break
				}
			}
			if !joined {
				merged = append(merged, a)
			}
		}
		out = merged
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
func (r *Reader) recognize(ctx context.Context, areas []image.Rectangle) ([]Line, error) {
	var blocks []block
	for _, a := range areas {
		img, _ := r.buf.Snapshot(a)
		blocks = append(blocks, segment(img, a.Min)...)
	}
	return r.eng.recognizeBlocks(ctx, blocks, r.lang)
}

// maxGrow bounds how far growToQuiet pushes one side of an area.
const maxGrow = 256

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
