// Package fb is a framebuffer mirror shared by the remote-desktop protocol
// clients (pkg/rfb, pkg/rdp) and the daemon. Protocol clients write decoded
// pixels into a Buffer; readers take snapshots, follow damage through
// Trackers and wait on Changed.
//
// Pixels are 4 bytes each in R, G, B, A order (the layout of image.RGBA), and
// writers keep A at 0xff so a snapshot is a ready opaque image. fb knows
// nothing of leases, fences or the wire; it only counts.
package fb

import (
	"errors"
	"fmt"
	"image"
	"math/bits"
	"sync"
	"time"
)

// MaxDim bounds either side of a framebuffer. A server announcing more is
// hostile or broken; 16384 covers every real multi-monitor desktop.
const MaxDim = 16384

// DefaultMaxPixels bounds a buffer's area unless SetMaxPixels says
// otherwise: 8192x4096 (an 8K UHD screen, or two 4K side by side), 128 MiB
// of pixels. A server announcing more is refused.
const DefaultMaxPixels = 8192 * 4096

// ErrTooLarge is returned by Resize for sizes beyond MaxDim or the
// buffer's pixel limit.
var ErrTooLarge = errors.New("fb: framebuffer size out of range")

// Buffer is a framebuffer mirror. The zero value is not usable; call New.
type Buffer struct {
	mu       sync.RWMutex
	w, h     int
	lastW    int
	lastH    int
	pix      []byte
	resized  time.Time // the latest Resize, for Pixels
	trimming bool      // a trim is due (Pixels kept a bigger array)
	resizes  uint64
	seq      uint64
	last     time.Time // time of the latest damage or resize

	// coverage: one bit per pixel, row-major, words per row = (w+63)/64.
	// Dropped (nil) once every pixel has been received.
	cov      []uint64
	covArr   []uint64 // cov's array, kept for the next resize once cov is dropped
	covWords int
	covered  int64

	trackers  map[*Tracker]struct{}
	changed   chan struct{}
	maxPixels int

	budget decodeBudget
}

// New returns an empty (0x0) buffer.
func New() *Buffer {
	return &Buffer{trackers: map[*Tracker]struct{}{}, changed: make(chan struct{}), last: time.Now(), maxPixels: DefaultMaxPixels}
}

// SetMaxPixels sets the largest area Resize accepts (n <= 0: the default).
func (b *Buffer) SetMaxPixels(n int) {
	if n <= 0 {
		n = DefaultMaxPixels
	}
	b.mu.Lock()
	b.maxPixels = n
	b.mu.Unlock()
}

// MaxPixels is the largest area Resize accepts.
func (b *Buffer) MaxPixels() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.maxPixels
}

// CheckSize reports whether Resize would accept w x h, as ErrTooLarge
// wrapped with the limit, so protocol clients can refuse a size before
// allocating anything of their own for it.
func (b *Buffer) CheckSize(w, h int) error {
	limit := b.MaxPixels()
	if w < 0 || h < 0 || w > MaxDim || h > MaxDim {
		return fmt.Errorf("%w: %dx%d (each side at most %d)", ErrTooLarge, w, h, MaxDim)
	}
	if w*h > limit {
		return fmt.Errorf("%w: %dx%d is over the limit of %d pixels", ErrTooLarge, w, h, limit)
	}
	return nil
}

// Resize sets a size, clears the pixels to black and resets coverage (a
// reconnect calls it again with the same size). Only a real change of size
// counts as a resize. Every tracker sees the whole frame as damaged.
func (b *Buffer) Resize(w, h int) error {
	if err := b.CheckSize(w, h); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.w, b.h = w, h
	n := w * h * 4
	old := b.pix
	b.pix = nil
	b.pix = Pixels(old, n, &b.resized)
	if Oversized(b.pix) && !b.trimming {
		b.trimming = true
		time.AfterFunc(shrinkAfter, b.trim)
	}
	for i := 3; i < n; i += 4 {
		b.pix[i] = 0xff
	}
	b.covWords = (w + 63) / 64
	// The coverage bits reuse one array too: a fresh one on every resize
	// is garbage the collector lets pile up to the size of the live heap.
	if nw := b.covWords * h; cap(b.covArr) >= nw {
		b.cov = b.covArr[:nw]
		clear(b.cov)
	} else {
		b.cov = make([]uint64, nw)
		b.covArr = b.cov
	}
	b.covered = 0
	changed := w != b.lastW || h != b.lastH || b.resizes == 0
	if changed {
		b.resizes++
	}
	b.lastW, b.lastH = w, h
	full := image.Rect(0, 0, w, h)
	for t := range b.trackers {
		t.resized = t.resized || changed
		t.fills = t.fills[:0] // the cleared pixels are no fill anyone was told of
		if !full.Empty() {
			t.addOther(full)
		}
	}
	b.bumpLocked()
	return nil
}

// trim swaps the pixels into an array of their own size once the size has
// held (see Pixels), or waits again.
func (b *Buffer) trim() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if wait := shrinkAfter - time.Since(b.resized); wait > 0 && Oversized(b.pix) {
		time.AfterFunc(wait, b.trim)
		return
	}
	b.trimming = false
	b.pix = Trim(b.pix, b.resized)
	if n := b.covWords * b.h; cap(b.covArr) > 2*n {
		b.covArr = nil
		if b.cov != nil {
			b.cov = append([]uint64(nil), b.cov...)
			b.covArr = b.cov
		}
	}
}

// Free drops the pixels and coverage of a buffer nobody will draw into
// again (its limb closed) and hands their memory back to the OS: a closed
// limb's mirror must not wait for every last reference to it to go. The
// buffer is then 0x0; every tracker sees a resize and no damage.
func (b *Buffer) Free() {
	b.mu.Lock()
	dropped := cap(b.pix)
	b.pix, b.cov, b.covArr = nil, nil, nil
	b.w, b.h, b.covWords, b.covered = 0, 0, 0, 0
	for t := range b.trackers {
		t.clearLocked()
		t.tiles, t.cols = nil, 0
		t.resized = true
	}
	b.bumpLocked()
	b.mu.Unlock()
	Release(dropped)
}

// Size reports the current width and height.
func (b *Buffer) Size() (w, h int) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.w, b.h
}

// Renew starts a new generation at the same size, as a resize would: the
// picture is cleared and every tracker sees a resize, so fences arm and
// coordinates read before are refused. It is for a screen whose content
// was replaced under it (a machine restored to a snapshot, or reset).
func (b *Buffer) Renew() error {
	b.mu.Lock()
	w, h := b.w, b.h
	b.lastW, b.lastH = 0, 0 // the next Resize counts as a change
	b.mu.Unlock()
	if w == 0 || h == 0 {
		return nil
	}
	return b.Resize(w, h)
}

// Resizes counts size changes since New (the first Resize counts as one),
// and renewals. The daemon's geometry generation is derived from it.
func (b *Buffer) Resizes() uint64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.resizes
}

// Seq rises on every damage and resize.
func (b *Buffer) Seq() uint64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.seq
}

// LastChange is the time of the latest damage or resize.
func (b *Buffer) LastChange() time.Time {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.last
}

// Coverage is the share of pixels received since the last resize, 0..1.
func (b *Buffer) Coverage() float64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	total := int64(b.w) * int64(b.h)
	if total == 0 {
		return 0
	}
	return float64(b.covered) / float64(total)
}

// Changed returns a channel closed at the next damage or resize.
func (b *Buffer) Changed() <-chan struct{} {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.changed
}

// BeginWrite locks the buffer for writing and exposes the pixels. The caller
// must call EndWrite, naming the rectangles it changed. Keep the section
// short: never read from the network while holding it.
func (b *Buffer) BeginWrite() (pix []byte, stride, w, h int) {
	b.mu.Lock()
	return b.pix, b.w * 4, b.w, b.h
}

// EndWrite records damage and unlocks. Rectangles are clipped to the frame.
func (b *Buffer) EndWrite(damage ...image.Rectangle) {
	b.endWrite(damage, nil)
}

func (b *Buffer) endWrite(damage []image.Rectangle, fills []Fill) {
	bounds := image.Rect(0, 0, b.w, b.h)
	any := false
	for _, r := range damage {
		r = r.Intersect(bounds)
		if r.Empty() {
			continue
		}
		any = true
		b.coverLocked(r)
		for t := range b.trackers {
			t.addOther(r)
		}
	}
	for _, f := range fills {
		f.R = f.R.Intersect(bounds)
		if f.R.Empty() {
			continue
		}
		any = true
		b.coverLocked(f.R)
		for t := range b.trackers {
			t.add(f.R)
			t.addFill(f)
		}
	}
	if any {
		b.bumpLocked()
	}
	b.mu.Unlock()
}

func (b *Buffer) bumpLocked() {
	b.seq++
	b.last = time.Now()
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *Buffer) coverLocked(r image.Rectangle) {
	if b.cov == nil {
		return
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := b.cov[y*b.covWords : (y+1)*b.covWords]
		for x := r.Min.X; x < r.Max.X; {
			wi, bi := x/64, x%64
			n := min(64-bi, r.Max.X-x)
			var mask uint64
			if n == 64 {
				mask = ^uint64(0)
			} else {
				mask = ((uint64(1) << n) - 1) << bi
			}
			b.covered += int64(bits.OnesCount64(mask &^ row[wi]))
			row[wi] |= mask
			x += n
		}
	}
	if b.covered >= int64(b.w)*int64(b.h) {
		b.cov = nil
	}
}

// Snapshot copies the region r (clipped to the frame) into a new image whose
// bounds start at (0,0). It also reports the damage sequence it reflects.
func (b *Buffer) Snapshot(r image.Rectangle) (*image.RGBA, uint64) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	r = r.Intersect(image.Rect(0, 0, b.w, b.h))
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	stride := b.w * 4
	for y := 0; y < r.Dy(); y++ {
		src := b.pix[(r.Min.Y+y)*stride+r.Min.X*4 : (r.Min.Y+y)*stride+r.Max.X*4]
		copy(img.Pix[y*img.Stride:], src)
	}
	return img, b.seq
}

// Read runs fn with the pixels under the read lock, for encoders that can
// work straight from the mirror without a copy.
func (b *Buffer) Read(fn func(pix []byte, stride, w, h int, seq uint64)) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	fn(b.pix, b.w*4, b.w, b.h, b.seq)
}

// TileSize is the side of the square tiles trackers count damage in.
const TileSize = 16

// Tracker accumulates damage from one reader's point of view: which tiles
// of the frame changed since it last looked, and their bounding box.
// Counting tiles rather than summing rectangle areas means a blinking cursor
// repainting the same spot a thousand times still counts as one tile.
type Tracker struct {
	b       *Buffer
	tiles   []uint64 // bitset, row-major over tile columns
	cols    int
	count   int
	bounds  image.Rectangle
	resized bool
	fills   []Fill          // known fills, in the order written (fill.go)
	other   image.Rectangle // bounding box of the damage that is no known fill
}

// NewTracker starts a tracker with no damage recorded.
func (b *Buffer) NewTracker() *Tracker {
	t := &Tracker{b: b}
	b.mu.Lock()
	b.trackers[t] = struct{}{}
	b.mu.Unlock()
	return t
}

// addOther records damage that is no known fill.
func (t *Tracker) addOther(r image.Rectangle) {
	t.add(r)
	t.other = t.other.Union(r)
}

func (t *Tracker) add(r image.Rectangle) {
	cols := (t.b.w + TileSize - 1) / TileSize
	rows := (t.b.h + TileSize - 1) / TileSize
	if cols != t.cols || len(t.tiles) != (cols*rows+63)/64 {
		t.cols = cols
		t.tiles = make([]uint64, (cols*rows+63)/64)
		t.count = 0
	}
	t.bounds = t.bounds.Union(r)
	for ty := r.Min.Y / TileSize; ty <= (r.Max.Y-1)/TileSize; ty++ {
		for tx := r.Min.X / TileSize; tx <= (r.Max.X-1)/TileSize; tx++ {
			i := ty*cols + tx
			if t.tiles[i/64]&(1<<(i%64)) == 0 {
				t.tiles[i/64] |= 1 << (i % 64)
				t.count++
			}
		}
	}
}

// Damage is what a tracker accumulated.
type Damage struct {
	Share   float64         // share of the frame's tiles that changed, 0..1
	Bounds  image.Rectangle // bounding box of all changes; empty when none
	Resized bool            // a resize happened
	Seq     uint64          // the buffer's damage sequence when this was read
	// Fills are changes known to be one colour each, in the order written
	// (a later one may cover part of an earlier one); Other bounds the
	// rest. Painting the fills in order, then whatever differs inside
	// Other, gives the picture up to Seq.
	Fills []Fill
	Other image.Rectangle
}

// Peek reports the accumulated damage without clearing it.
func (t *Tracker) Peek() Damage {
	t.b.mu.RLock()
	defer t.b.mu.RUnlock()
	return t.peekLocked()
}

func (t *Tracker) peekLocked() Damage {
	cols := (t.b.w + TileSize - 1) / TileSize
	rows := (t.b.h + TileSize - 1) / TileSize
	d := Damage{Bounds: t.bounds, Resized: t.resized, Seq: t.b.seq, Other: t.other}
	if cols*rows > 0 {
		d.Share = float64(t.count) / float64(cols*rows)
	}
	return d
}

// Take reports the accumulated damage and clears it.
func (t *Tracker) Take() Damage {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	d := t.peekLocked()
	if len(t.fills) > 0 {
		d.Fills = append([]Fill(nil), t.fills...)
	}
	t.clearLocked()
	return d
}

func (t *Tracker) clearLocked() {
	clear(t.tiles)
	t.count, t.bounds, t.resized = 0, image.Rectangle{}, false
	t.fills, t.other = t.fills[:0], image.Rectangle{}
}

// Close detaches the tracker from its buffer.
func (t *Tracker) Close() {
	t.b.mu.Lock()
	delete(t.b.trackers, t)
	t.b.mu.Unlock()
}

// TakeRects reports the accumulated damage as rectangles of whole tiles
// (one per run of changed tiles in a tile row, clipped to the frame) and
// clears it. Readers that work per changed area (text recognition, image
// search) use it instead of the single bounding box, so two small changes
// far apart stay two small areas.
func (t *Tracker) TakeRects() (rects []image.Rectangle, resized bool) {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	rects, resized = t.rectsLocked(), t.resized
	t.clearLocked()
	return rects, resized
}

// TakeRectsFills is TakeRects with the known fills among the damage and
// the bounds of the rest (see Damage.Fills and Damage.Other).
func (t *Tracker) TakeRectsFills() (rects []image.Rectangle, fills []Fill, other image.Rectangle, resized bool) {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	rects, resized, other = t.rectsLocked(), t.resized, t.other
	if len(t.fills) > 0 {
		fills = append([]Fill(nil), t.fills...)
	}
	t.clearLocked()
	return rects, fills, other, resized
}

func (t *Tracker) rectsLocked() (rects []image.Rectangle) {
	frame := image.Rect(0, 0, t.b.w, t.b.h)
	if t.count > 0 && t.cols > 0 {
		rows := (len(t.tiles)*64 + t.cols - 1) / t.cols
		set := func(i int) bool { return i/64 < len(t.tiles) && t.tiles[i/64]&(1<<(i%64)) != 0 }
		for ty := 0; ty < rows; ty++ {
			for tx := 0; tx < t.cols; {
				if !set(ty*t.cols + tx) {
					tx++
					continue
				}
				start := tx
				for tx < t.cols && set(ty*t.cols+tx) {
					tx++
				}
				r := image.Rect(start*TileSize, ty*TileSize, tx*TileSize, (ty+1)*TileSize).Intersect(frame)
				if !r.Empty() {
					rects = append(rects, r)
				}
			}
		}
	}
	return rects
}
