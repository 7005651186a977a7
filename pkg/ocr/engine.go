// Package ocr reads text off a framebuffer mirror with Tesseract. It sends
// pictures to dvvocr, a resident worker that keeps the model loaded, and
// runs the `tesseract` program when there is no worker (docs/ocr.md says
// why and what each costs). It recognises only the areas that changed
// since it last looked, and keeps what it read per area and damage
// sequence, so an unchanged screen costs nothing. It knows nothing of
// leases, fences or the wire.
package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/dvvhq/dvv/pkg/ocr/pipe"
)

// EnvProgram names the environment variable that overrides the engine
// program's path (dvvd reads it at start).
const EnvProgram = "DVV_TESSERACT"

// InstallHint says how to get the engine.
const InstallHint = "install Tesseract (Debian/Ubuntu: apt install tesseract-ocr tesseract-ocr-eng, and libtesseract5 for dvvocr, dvv's resident reader; Fedora: dnf install tesseract; macOS: brew install tesseract), or point " + EnvProgram + " at the program"

// ErrUnavailable is returned when the engine program or a language is missing.
var ErrUnavailable = errors.New("ocr: text recognition is not available")

// UnavailableError says what is missing and how to get it.
type UnavailableError struct{ Reason string }

func (e *UnavailableError) Error() string { return e.Reason + "; " + InstallHint }

// Unwrap lets errors.Is(err, ErrUnavailable) match.
func (e *UnavailableError) Unwrap() error { return ErrUnavailable }

// Engine reads pictures with the worker, or else the tesseract program.
type Engine struct {
	// Worker is the path of dvvocr ("": read with the program only).
	Worker string
	// Program is the path or name of the tesseract program.
	Program string
	// Scale is the upscale factor applied before recognition: Tesseract
	// reads glyphs best at 20 to 30 pixels high, and UI fonts are 10 to 13
	// (docs/ocr.md has the measurement). 0 means DefaultScale.
	Scale int
	// NoGlyphs turns the glyph dictionary off: every block not in the
	// block cache goes to the engine ($DVV_OCR_GLYPHS=off).
	NoGlyphs bool
}

// DefaultScale is the upscale factor used when Engine.Scale is 0.
const DefaultScale = 2

// EnvGlyphs names the environment variable that turns the glyph dictionary
// off ("off").
const EnvGlyphs = "DVV_OCR_GLYPHS"

// NewEngine returns an engine using the worker FindWorker finds and, when
// there is none or it cannot start, program, or $DVV_TESSERACT, or
// "tesseract" on PATH.
func NewEngine(program string) *Engine {
	if program == "" {
		program = os.Getenv(EnvProgram)
	}
	if program == "" {
		program = "tesseract"
	}
	return &Engine{Worker: FindWorker(), Program: program, NoGlyphs: os.Getenv(EnvGlyphs) == "off"}
}

// ValidLang reports whether lang is a well-formed language list such as
// "eng" or "eng+deu" (what the engine is told, never a path or a flag).
func ValidLang(lang string) bool { return pipe.LangOK(lang) }

// Check reports whether the worker or the program is there, as an
// UnavailableError.
func (e *Engine) Check() error {
	if e.workerUsable() {
		return nil
	}
	if _, err := exec.LookPath(e.Program); err != nil {
		return e.missing()
	}
	return nil
}

// Resident reports whether reads go to the resident worker (a read costs
// its recognition only, no program start).
func (e *Engine) Resident() bool { return e.workerUsable() }

// missing says that neither the worker nor the program can read.
func (e *Engine) missing() error {
	reason := fmt.Sprintf("the text recognition program %q was not found", e.Program)
	if e.Worker != "" {
		if _, err := exec.LookPath(e.Worker); err != nil {
			return &UnavailableError{Reason: fmt.Sprintf("the recognition worker %q was not found and %s", e.Worker, reason)}
		}
		p := poolFor(e.Worker)
		p.mu.Lock()
		if p.broken != nil {
			reason = fmt.Sprintf("the recognition worker could not start (%v) and %s", p.broken, reason)
		}
		p.mu.Unlock()
	}
	return &UnavailableError{Reason: reason}
}

// workerUsable reports whether reads go to the worker: it is there and
// has not failed to start lately.
func (e *Engine) workerUsable() bool {
	if e.Worker == "" {
		return false
	}
	if _, err := exec.LookPath(e.Worker); err != nil {
		return false
	}
	return poolFor(e.Worker).usable()
}

// maxOutput bounds the engine's output.
const maxOutput = 16 << 20

// block is one piece of content to recognise: a rectangle of a grey copy
// of the screen whose top-left pixel is at origin in the framebuffer.
type block struct {
	g      *gray
	r      image.Rectangle
	origin image.Point
}

// segment cuts an area of the screen (img, whose top-left corner is at
// origin) into blocks of content.
func segment(img *image.RGBA, origin image.Point) []block {
	g := toGray(img)
	var out []block
	for _, r := range g.blocks(image.Rect(0, 0, g.w, g.h), nil, 0) {
		out = append(out, unframe(g, r, origin)...)
	}
	return out
}

// unframe cuts a block again without its frames: a keypad of bordered keys
// or a row of outlined buttons is one block to the XY cut (a key's side is
// too short to be a border, so it is detail), and the engine reads such a
// grid as a picture, nothing at all. With every frame painted over in the
// block's paper, the labels stand apart and the cut parts them, one block
// a key. Plates (filled shapes with a label through them) are taken out
// too, each a block of its own. A block without either comes back as it
// was.
func unframe(g *gray, r image.Rectangle, origin image.Point) []block {
	if r.Dx() < 24 || r.Dy() < 16 {
		return []block{{g: g, r: r, origin: origin}}
	}
	paper := g.background(r)
	label, frames, plates := findFrames(g, r, paper, 1)
	if len(frames) == 0 && len(plates) == 0 {
		return []block{{g: g, r: r, origin: origin}}
	}
	bw, bh := r.Dx(), r.Dy()
	sub := &gray{pix: make([]uint8, bw*bh), w: bw, h: bh}
	for y := 0; y < bh; y++ {
		copy(sub.pix[y*bw:(y+1)*bw], g.pix[(r.Min.Y+y)*g.w+r.Min.X:])
	}
	for i, id := range label {
		if id == 0 {
			continue
		}
		if frames[id] {
			sub.pix[i] = paper
		}
	}
	for _, p := range plates { // with its label: read on its own below
		for y := p.Min.Y; y < p.Max.Y; y++ {
			for x := p.Min.X; x < p.Max.X; x++ {
				sub.pix[y*bw+x] = paper
			}
		}
	}
	// The cut goes by a copy with everything but ink flattened to the
	// paper: a faint outline left (a disabled button's, too light to be
	// ink) would hold a disabled label and its neighbour's together, and
	// the neighbour's black text would then set the block's levels. The
	// blocks are drawn from sub, faint pixels and all.
	flat := &gray{pix: append([]uint8(nil), sub.pix...), w: bw, h: bh}
	for i, v := range flat.pix {
		if absDiff(v, paper) <= inkDelta {
			flat.pix[i] = paper
		}
	}
	flat.markDetail()
	o := origin.Add(r.Min)
	var out []block
	// A plate is a block of its own, on its own paper: the engine sees
	// its label dark on white like any other (see levels), where beside
	// the block's other text it was a light label on a darker blot.
	for _, p := range plates {
		out = append(out, block{g: g, r: p.Add(r.Min), origin: origin})
	}
	for _, c := range flat.blocks(image.Rect(0, 0, bw, bh), nil, 0) {
		out = append(out, block{g: sub, r: c, origin: o})
	}
	return out
}

// Recognize reads the text of img, an area of the screen whose top-left
// corner is at origin in framebuffer pixels; boxes come back in
// framebuffer pixels.
func (e *Engine) Recognize(ctx context.Context, img *image.RGBA, origin image.Point, lang string) ([]Line, error) {
	lines, _, err := e.recognizeBlocks(ctx, segment(img, origin), lang, nil, nil)
	dropChars(lines)
	readingOrder(lines)
	return joinRows(lines), err
}

// canvasRows bounds one engine run's picture height (upscaled pixels):
// more content is split over several runs, run side by side.
const canvasRows = 2400

// splitRows is the content (upscaled rows) above which a read is spread
// over as many canvases as there are run slots, so every core reads.
const splitRows = 400

// recognizeBlocks lays the blocks out one under the other on white canvases
// (each block upscaled, dark text on light paper whatever its colours),
// runs the engine once per canvas, side by side, and maps every word back
// to the screen. Blocks the cache (if any) knows are not read again; lines
// whose every glyph the dictionary (if any) knows are read from it, and
// what the engine reads teaches it. When the dictionary lacks glyphs, the
// few blocks that hold them all are read first, and the rest are looked up
// with what they taught, in up to maxRounds rounds (stage.go).
func (e *Engine) recognizeBlocks(ctx context.Context, blocks []block, lang string, cache *blockCache, dict *glyphDict) ([]Line, work, error) {
	if !ValidLang(lang) {
		return nil, work{}, fmt.Errorf("ocr: language %q is not a list like eng or eng+deu", lang)
	}
	if err := e.Check(); err != nil {
		return nil, work{}, err
	}
	scale := e.Scale
	if scale <= 0 {
		scale = DefaultScale
	}
	var wk work
	out, todo, keys, twins := knownBlocks(blocks, scale, cache, dict, &wk)
	// found adds what block i of todo read as, with its twins.
	found := func(i int, lines []Line) {
		out = append(out, lines...)
		b := todo[i]
		for _, t := range twins[i] {
			out = append(out, place(lines, t.r.Min.Add(t.origin).Sub(b.r.Min.Add(b.origin)))...)
		}
	}
	pending := make([]int, len(todo))
	for i := range todo {
		pending[i] = i
	}
	for round, taught := 1, true; len(pending) > 0; round++ {
		now, later := pending, []int(nil)
		if dict != nil && taught && round < maxRounds {
			now, later = teachFirst(dict, todo, pending)
		}
		sub := make([]block, len(now))
		for j, i := range now {
			sub[j] = todo[i]
		}
		progress := 0
		if dict != nil {
			progress = dict.progress()
		}
		results, runs, err := e.readBlocks(ctx, sub, lang, scale, len(later) > 0)
		if err != nil {
			return nil, work{}, err
		}
		wk.runs += runs
		wk.blocks += len(sub)
		for j, lines := range results {
			i := now[j]
			if cache != nil {
				cache.put(keys[i], todo[i], lines)
			}
			if dict != nil {
				dict.learn(todo[i], lines)
			}
			found(i, lines)
		}
		// Look the rest up with what this round taught; what is still
		// unknown goes to the next round, if this one taught anything (a
		// glyph put in use or brought nearer, or a block looked up).
		pending, taught = nil, dict != nil && dict.progress() > progress
		for _, i := range later {
			if lines, ok := dict.lookup(todo[i]); ok {
				found(i, lines)
				wk.looked++
				taught = true
			} else {
				pending = append(pending, i)
			}
		}
	}
	return out, wk, nil
}

// knownBlocks is recognizeBlocks' first pass: the lines of the blocks
// the cache or the dictionary already knows (out, counting the looked-up
// in wk), and the distinct blocks left to read (todo, with their keys and
// for each the blocks with the same pixels, twins). Each distinct block is
// recognised once: a terminal repeats the same pieces of text
// (-rw-r--r--, "1 root root", a date) on many lines, and equal pixels
// read as equal text, as the block cache assumes.
func knownBlocks(blocks []block, scale int, cache *blockCache, dict *glyphDict, wk *work) (out []Line, todo []block, keys []blockKey, twins [][]block) {
	seen := map[blockKey]int{}
	seed := dedupSeed
	if cache != nil {
		seed = cache.seed
	}
	for _, b := range blocks {
		k := contentKey(seed, b, scale)
		if cache != nil {
			if lines, ok := cache.get(k, b); ok {
				out = append(out, lines...)
				continue
			}
		}
		if i, ok := seen[k]; ok {
			twins[i] = append(twins[i], b)
			continue
		}
		if dict != nil {
			if lines, ok := dict.lookup(b); ok {
				out = append(out, lines...)
				wk.looked++
				continue
			}
		}
		seen[k] = len(todo)
		todo, keys, twins = append(todo, b), append(keys, k), append(twins, nil)
	}
	return out, todo, keys, twins
}

// readBlocks reads blocks with the engine: one list of lines for each.
// The blocks are laid out on canvases run side by side, sharing the work
// evenly; spread puts them on as many canvases as there are run slots even
// when they are few (a first stage is waited for before anything else).
func (e *Engine) readBlocks(ctx context.Context, todo []block, lang string, scale int, spread bool) ([][]Line, int, error) {
	rows, cost := 0, 0
	for _, b := range todo {
		rows += (b.r.Dy() + pad) * scale
		cost += blockCost(b)
	}
	n := (rows + canvasRows - 1) / canvasRows
	if slots := cap(runSlots); n < slots && (rows > splitRows || spread) {
		n = min(slots, len(todo))
	} else if n > slots {
		// Whole rounds: 3 equal canvases on 2 cores take two thirds of
		// the work's time (two rounds), 4 take half.
		n = min((n+slots-1)/slots*slots, len(todo))
	}
	out, runs, err := e.readCanvases(ctx, todo, lang, scale, n, cost, psmColumn)
	if err != nil {
		return nil, 0, err
	}
	// Blocks the column layout read nothing from are read again as
	// uniform blocks of text (psmBlock): a keypad's labels, a lone button.
	var again []block
	var at []int
	for i, lines := range out {
		if len(lines) == 0 {
			again, at = append(again, todo[i]), append(at, i)
		}
	}
	if len(again) == 0 {
		return out, runs, nil
	}
	cost = 0
	for _, b := range again {
		cost += blockCost(b)
	}
	more, runs2, err := e.readCanvases(ctx, again, lang, scale, min(n, len(again)), cost, psmBlock)
	if err != nil {
		return nil, 0, err
	}
	for j, i := range at {
		out[i] = more[j]
	}
	return out, runs + runs2, nil
}

// readCanvases lays todo out on n canvases sharing cost evenly, reads them
// side by side with page segmentation mode psm, and returns one list of
// lines for each block.
func (e *Engine) readCanvases(ctx context.Context, todo []block, lang string, scale, n, cost, psm int) ([][]Line, int, error) {
	// The canvases share the recognition work evenly (the engine's time
	// grows with the text's width, not with the canvas's height).
	share := (cost + n - 1) / n
	var canvases []*canvas
	var first []int // index in todo of each canvas's first block
	var cur *canvas
	curCost := 0
	for i, b := range todo {
		r, c := (b.r.Dy()+pad)*scale, blockCost(b)
		if cur == nil || (cur.rows > 0 && (cur.rows+r > canvasRows || (curCost+c/2 > share && len(canvases) < n))) {
			cur = &canvas{scale: scale, psm: psm}
			canvases = append(canvases, cur)
			first = append(first, i)
			curCost = 0
		}
		cur.add(b)
		curCost += c
	}
	results := make([][][]Line, len(canvases))
	errs := make([]error, len(canvases))
	var wg sync.WaitGroup
	for i, c := range canvases {
		// The slot is taken before the canvas is drawn, so a call waiting
		// for the engine holds no picture.
		if errs[i] = acquireRun(ctx); errs[i] != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { releaseRun(); wg.Done() }()
			var tsv []byte
			if tsv, errs[i] = e.read(ctx, c, lang); errs[i] == nil {
				results[i] = c.mapBack(parseTSV(tsv))
			}
		}()
	}
	wg.Wait()
	out := make([][]Line, len(todo))
	for i := range canvases {
		if errs[i] != nil {
			return nil, 0, errs[i]
		}
		for j, lines := range results[i] {
			out[first[i]+j] = lines
		}
	}
	return out, len(canvases), nil
}

// work is what a recognition cost: engine runs, distinct blocks the engine
// read, and blocks read from the glyph dictionary instead.
type work struct{ runs, blocks, looked int }

// blockCost is what recognising a block costs, in proportion: the
// engine's time grows with the width of the text it reads, line by line.
func blockCost(b block) int { return b.r.Dx() * b.r.Dy() }

// runSlots bounds the recognitions (worker reads or program runs) going on
// at once in this process, whatever the number of limbs, readers and
// calls: each takes a core, and a burst of calls must queue rather than
// start a recogniser per area. It also bounds the workers started.
var runSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// acquireRun waits for a run slot, or for ctx to end.
func acquireRun(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case runSlots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func releaseRun() { <-runSlots }

// read recognises one canvas with the worker, or with the program when
// there is no worker or it cannot start.
func (e *Engine) read(ctx context.Context, c *canvas, lang string) ([]byte, error) {
	pix, w, h := c.draw()
	if e.workerUsable() {
		tsv, err := poolFor(e.Worker).recognize(ctx, pix, w, h, lang, c.mode())
		if !errors.Is(err, errStartFailed) {
			return tsv, err
		}
	}
	if _, err := exec.LookPath(e.Program); err != nil {
		return nil, e.missing()
	}
	return e.run(ctx, pgm(pix, w, h), lang, c.mode())
}

// run feeds one PGM picture to the engine program and returns its TSV.
func (e *Engine) run(ctx context.Context, pgm []byte, lang string, psm int) ([]byte, error) {
	// One thread per run: OpenMP's spinning threads cost more than they
	// give on small pictures, and dvvd runs canvases side by side instead.
	cmd := exec.CommandContext(ctx, e.Program, "stdin", "stdout", "-l", lang, "--oem", "1", "--psm", strconv.Itoa(psm), "tsv")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdin = bytes.NewReader(pgm)
	out := &limitedBuffer{max: maxOutput}
	stderr := &limitedBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = out, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "Failed loading language") || strings.Contains(msg, "Error opening data file") {
			return nil, langMissing(lang)
		}
		return nil, fmt.Errorf("ocr: %s failed: %v: %s", filepath.Base(e.Program), err, msg)
	}
	return out.Bytes(), nil
}

// langMissing says which language data to install.
func langMissing(lang string) error {
	return &UnavailableError{Reason: fmt.Sprintf("the language data for %q is not installed (Debian: apt install tesseract-ocr-%s)", lang, strings.SplitN(lang, "+", 2)[0])}
}

// pad is the white space around each block on a canvas, in source pixels.
const pad = 8

// canvas is one engine run's picture: blocks stacked top to bottom.
type canvas struct {
	scale  int
	psm    int // page segmentation mode; 0 is psmColumn
	blocks []block
	at     []image.Rectangle // each block's place on the canvas (upscaled pixels)
	rows   int
	cols   int
}

// Page segmentation modes the engine is run with.
const (
	// psmColumn (4) reads a canvas as one column of lines of varying
	// sizes: it reads terminal and dialog lines best (see docs/ocr.md).
	psmColumn = 4
	// psmBlock (6) reads a canvas as one uniform block of text. Blocks
	// that psmColumn read nothing from are read again with it: on a canvas
	// of short labels cut from a keypad (xcalc's "sin", "STO", "7", each
	// 9 pixels high), psmColumn's layout analysis finds no text line at
	// all, while psmBlock reads nearly every key.
	psmBlock = 6
)

func (c *canvas) mode() int {
	if c.psm == 0 {
		return psmColumn
	}
	return c.psm
}

func (c *canvas) add(b block) {
	s := c.scale
	top := c.rows + pad*s
	r := image.Rect(pad*s, top, pad*s+b.r.Dx()*s, top+b.r.Dy()*s)
	c.blocks = append(c.blocks, b)
	c.at = append(c.at, r)
	c.rows = r.Max.Y
	c.cols = max(c.cols, r.Max.X+pad*s)
}

// pgm wraps grey pixels in a binary PGM header.
func pgm(pix []byte, w, h int) []byte {
	return append([]byte(fmt.Sprintf("P5\n%d %d\n255\n", w, h)), pix...)
}

// draw draws the canvas: white paper, each block upscaled (bilinear) with
// its paper white and its darkest ink black (see levels), as w x h grey
// bytes.
func (c *canvas) draw() (dst []byte, w, h int) {
	w, h = c.cols, c.rows+pad*c.scale
	dst = make([]byte, w*h)
	for i := range dst {
		dst[i] = 0xff
	}
	for i, b := range c.blocks {
		paper := b.g.background(b.r)
		upscale(b.g, b.r, c.scale, levels(b.g, b.r, paper), dst, w, c.at[i].Min)
		eraseFrames(b.g, b.r, paper, c.scale, dst, w, c.at[i].Min, 0xff)
	}
	return dst, w, h
}

// mapBack turns words on the canvas into words on the screen, block by
// block (one list of lines for each of c.blocks). Words whose centre is
// on no block (noise in the padding) are dropped.
func (c *canvas) mapBack(lines []Line) [][]Line {
	out := make([][]Line, len(c.blocks))
	for _, l := range lines {
		per := map[int]*Line{}
		var order []int
		for _, w := range l.Words {
			ctr := image.Pt((w.Box.Min.X+w.Box.Max.X)/2, (w.Box.Min.Y+w.Box.Max.Y)/2)
			for i, at := range c.at {
				if !ctr.In(at) {
					continue
				}
				b := c.blocks[i]
				toScreen := func(r image.Rectangle) image.Rectangle {
					return unscale(r.Intersect(at).Sub(at.Min), c.scale).Add(b.r.Min).Intersect(b.r).Add(b.origin)
				}
				box := toScreen(w.Box)
				if !box.Empty() {
					w.chars = mapChars(w.chars, toScreen)
					nl := per[i]
					if nl == nil {
						nl = &Line{}
						per[i] = nl
						order = append(order, i)
					}
					w.Box = box
					nl.Words = append(nl.Words, w)
					nl.Box = nl.Box.Union(box)
				}
				break
			}
		}
		for _, i := range order {
			out[i] = append(out[i], *per[i])
		}
	}
	return out
}

// mapChars maps a word's characters as its box; a character mapped off
// its block drops them all (they must spell the word).
func mapChars(cs []char, toScreen func(image.Rectangle) image.Rectangle) []char {
	if len(cs) == 0 {
		return nil
	}
	out := make([]char, 0, len(cs))
	for _, ch := range cs {
		if ch.box = toScreen(ch.box); ch.box.Empty() {
			return nil
		}
		out = append(out, ch)
	}
	return out
}

// unscale maps a box on the upscaled picture back to source pixels,
// rounding outward so the box still holds the glyphs.
func unscale(r image.Rectangle, s int) image.Rectangle {
	return image.Rect(r.Min.X/s, r.Min.Y/s, (r.Max.X+s-1)/s, (r.Max.Y+s-1)/s)
}

// levels maps a block's grey values so its paper is white and, when its
// contrast is weak, the value farthest from it (its ink) black, the rest
// in between: faint text on a light button (a disabled label, grey 171 on
// 238) comes out dark on white; the engine, thresholding the whole canvas
// at once, lost it beside the black text of other blocks. Light text on
// dark paper is inverted.
func levels(g *gray, r image.Rectangle, paper uint8) *[256]uint8 {
	far := paper
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for _, v := range g.pix[y*g.w+r.Min.X : y*g.w+r.Max.X] {
			if absDiff(v, paper) > absDiff(far, paper) {
				far = v
			}
		}
	}
	var lut [256]uint8
	p, k := int(paper), int(far)
	if d := absDiff(far, paper); d <= inkDelta || d >= strongInk {
		// No ink by the reader's measure (a button's faint outline left
		// when its label was cut away): stretched, it would be drawn as
		// black strokes. Or ink strong enough as it is: only inverted
		// when the paper is dark, as before (stretching a terminal's
		// anti-aliased glyphs changed what the engine was sure of, and
		// so what the glyph dictionary learned).
		if p < 128 {
			p, k = 0, 255
		} else {
			p, k = 255, 0
		}
	}
	for v := range lut {
		// 255 at the paper, 0 at the ink, clamped beyond either.
		lut[v] = uint8(min(max(255*(v-k)/(p-k), 0), 255))
	}
	return &lut
}

// strongInk is the contrast from which a block is drawn as it is.
const strongInk = 128

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// upscale draws r of g, s times larger with bilinear interpolation, into
// dst (stride w) at p, its values mapped through lut.
func upscale(g *gray, r image.Rectangle, s int, lut *[256]uint8, dst []byte, w int, p image.Point) {
	bw, bh := r.Dx(), r.Dy()
	px := func(x, y int) int {
		return int(lut[g.pix[(r.Min.Y+y)*g.w+r.Min.X+x]])
	}
	for oy := 0; oy < bh*s; oy++ {
		// Sample centres: source = (o + 0.5)/s - 0.5, in 1/256ths.
		fy := ((2*oy+1)*256)/(2*s) - 128
		y0, wy := 0, 0
		if fy > 0 {
			y0, wy = fy>>8, fy&0xff
		}
		y1 := min(y0+1, bh-1)
		row := dst[(p.Y+oy)*w+p.X:]
		for ox := 0; ox < bw*s; ox++ {
			fx := ((2*ox+1)*256)/(2*s) - 128
			x0, wx := 0, 0
			if fx > 0 {
				x0, wx = fx>>8, fx&0xff
			}
			x1 := min(x0+1, bw-1)
			top := px(x0, y0)*(256-wx) + px(x1, y0)*wx
			bot := px(x0, y1)*(256-wx) + px(x1, y1)*wx
			row[ox] = uint8((top*(256-wy) + bot*wy + 32768) >> 16)
		}
	}
}

// limitedBuffer keeps at most max bytes and drops the rest.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
