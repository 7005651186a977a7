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
	"image"
	"math/bits"
	"sync"
	"time"
)

// MaxDim bounds either side of a framebuffer. A server announcing more is
// hostile or broken; 16384 covers every real multi-monitor desktop.
const MaxDim = 16384

// ErrTooLarge is returned by Resize for sizes beyond MaxDim.
var ErrTooLarge = errors.New("fb: framebuffer size out of range")

// Buffer is a framebuffer mirror. The zero value is not usable; call New.
type Buffer struct {
	mu      sync.RWMutex
	w, h    int
	pix     []byte
	resizes uint64
	seq     uint64
	last    time.Time // time of the latest damage or resize

	// coverage: one bit per pixel, row-major, words per row = (w+63)/64.
	// Dropped (nil) once every pixel has been received.
	cov      []uint64
	covWords int
	covered  int64

	trackers map[*Tracker]struct{}
	changed  chan struct{}
}

// New returns an empty (0x0) buffer.
func New() *Buffer {
	return &Buffer{trackers: map[*Tracker]struct{}{}, changed: make(chan struct{}), last: time.Now()}
}

// Resize sets a new size, clears the pixels to black, resets coverage and
// counts one more resize. Every tracker sees the whole new frame as damaged.
func (b *Buffer) Resize(w, h int) error {
	if w < 0 || h < 0 || w > MaxDim || h > MaxDim {
		return ErrTooLarge
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.w, b.h = w, h
	n := w * h * 4
	if cap(b.pix) >= n && cap(b.pix) <= 2*n {
		b.pix = b.pix[:n]
		clear(b.pix)
	} else {
		b.pix = make([]byte, n)
	}
	for i := 3; i < n; i += 4 {
		b.pix[i] = 0xff
	}
	b.covWords = (w + 63) / 64
	b.cov = make([]uint64, b.covWords*h)
	b.covered = 0
	b.resizes++
	full := image.Rect(0, 0, w, h)
	for t := range b.trackers {
		t.resized = true
		t.add(full)
	}
	b.bumpLocked()
	return nil
}

// Size reports the current width and height.
func (b *Buffer) Size() (w, h int) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.w, b.h
}

// Resizes counts calls to Resize since New. The daemon's geometry generation
// is derived from it.
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
			t.add(r)
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

// Tracker accumulates damage from one reader's point of view: how many
// pixels changed since it last looked, and their bounding box.
type Tracker struct {
	b       *Buffer
	area    int64
	bounds  image.Rectangle
	resized bool
}

// NewTracker starts a tracker with no damage recorded.
func (b *Buffer) NewTracker() *Tracker {
	t := &Tracker{b: b}
	b.mu.Lock()
	b.trackers[t] = struct{}{}
	b.mu.Unlock()
	return t
}

func (t *Tracker) add(r image.Rectangle) {
	t.area += int64(r.Dx()) * int64(r.Dy())
	t.bounds = t.bounds.Union(r)
}

// Damage is what a tracker accumulated.
type Damage struct {
	Area    int64           // changed pixels, overlaps counted again, capped at the frame
	Bounds  image.Rectangle // bounding box of all changes; empty when none
	Resized bool            // a resize happened
}

// Peek reports the accumulated damage without clearing it.
func (t *Tracker) Peek() Damage {
	t.b.mu.RLock()
	defer t.b.mu.RUnlock()
	return t.peekLocked()
}

func (t *Tracker) peekLocked() Damage {
	full := int64(t.b.w) * int64(t.b.h)
	return Damage{Area: min(t.area, full), Bounds: t.bounds, Resized: t.resized}
}

// Take reports the accumulated damage and clears it.
func (t *Tracker) Take() Damage {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	d := t.peekLocked()
	t.area, t.bounds, t.resized = 0, image.Rectangle{}, false
	return d
}

// Close detaches the tracker from its buffer.
func (t *Tracker) Close() {
	t.b.mu.Lock()
	delete(t.b.trackers, t)
	t.b.mu.Unlock()
}
