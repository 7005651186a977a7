package rfbserver

import (
	"bytes"
	"hash/maphash"
	"image"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/dvvhq/dvv/pkg/fb"
)

// Viewers of one mirror share their work, at two levels. Sessions whose
// viewers have the same picture and look at the same change share the
// whole planned update (see sharedUpdate, below). Otherwise every session
// plans its own update (what its viewer has, by hash, and CopyRect for
// scrolls), but a pixel rectangle is encoded once for all the sessions
// that send the same pixels with the same settings: the first to need it
// encodes it, the others wait for its bytes and send them. The bytes are
// keyed by what they show (the rectangle, a hash of its pixels as copied
// from the mirror, the pixel format, the encoding and its options), so a
// session that lags and sends a different state never gets another's
// bytes, it encodes its own.
//
// Only Tight is shared: it is what browsers ask for and what costs (zlib,
// JPEG). Raw costs a copy, which sharing would not save but replace with
// an allocation of the same size per rectangle (on a big desktop, a heap
// that grows by frames before the collector catches up); ZRLE has one zlib
// stream per connection and no way to reset it.
//
// Shared bytes must not depend on a session's history. Tight's fill and
// JPEG never do; its zlib data does (four streams per connection), so a
// shared Tight rectangle resets its zlib stream first (the reset bits of
// the compression-control byte) and starts a new one.
//
// Sessions of a mirror also take their frames on one clock while they are
// paced (see onTick), so they send the same states and share them.

// mirrorHub is what the sessions of one mirror share.
type mirrorHub struct {
	buf      *fb.Buffer
	mu       sync.Mutex
	sessions int
	rects    map[shareKey]*sharedRect
	order    []*sharedRect // oldest first, for eviction
	bytes    int
	updates  []*sharedUpdate // the latest planned updates, oldest first
}

// A hub keeps at most this many bytes and rectangles of encodings: a few
// full frames, enough for every session of one update, never a history.
const (
	maxSharedBytes = 8 << 20
	maxSharedRects = 4096
)

var (
	hubsMu sync.Mutex
	hubs   = map[*fb.Buffer]*mirrorHub{}
)

// encodes counts pixel rectangles encoded, plans the updates planned (the
// tests' measures of sharing).
var encodes, plans atomic.Int64

// joinHub registers a session of buf.
func joinHub(buf *fb.Buffer) *mirrorHub {
	hubsMu.Lock()
	defer hubsMu.Unlock()
	h := hubs[buf]
	if h == nil {
		h = &mirrorHub{buf: buf, rects: map[shareKey]*sharedRect{}}
		hubs[buf] = h
	}
	h.mu.Lock()
	h.sessions++
	h.mu.Unlock()
	return h
}

// leave ends a session's membership; the last one frees the hub.
func (h *mirrorHub) leave() {
	hubsMu.Lock()
	defer hubsMu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sessions--; h.sessions == 0 {
		delete(hubs, h.buf)
		h.rects, h.order, h.bytes, h.updates = nil, nil, 0, nil
	}
}

// shared reports whether another session watches the same mirror: a
// session alone keeps its zlib stream across rectangles (better
// compression) and copies nothing.
func (h *mirrorHub) shared() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions > 1
}

// shareKey names an encoded rectangle by what it shows and how.
type shareKey struct {
	pf    PixelFormat
	pe    pixelEncoding
	photo bool
	r     image.Rectangle
	sum   uint64 // the hash of the rectangle's pixels (its tile columns' rows)
}

// sharedRect is one encoded rectangle; enc and data are set before done
// is closed and never change after.
type sharedRect struct {
	key  shareKey
	done chan struct{}
	enc  int32
	data []byte
}

// claim returns the rectangle named k, and whether the caller is the first
// to want it and must encode it (then publish it).
func (h *mirrorHub) claim(k shareKey) (*sharedRect, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r, ok := h.rects[k]; ok {
		return r, false
	}
	r := &sharedRect{key: k, done: make(chan struct{})}
	if h.rects != nil {
		h.rects[k] = r
		h.order = append(h.order, r)
	}
	return r, true
}

// publish hands r's bytes (copied: data is the encoder's buffer) to the
// sessions waiting for it, and drops the oldest rectangles over the bound.
func (h *mirrorHub) publish(r *sharedRect, enc int32, data []byte) {
	h.mu.Lock()
	r.enc, r.data = enc, bytes.Clone(data)
	if h.rects[r.key] == r {
		h.bytes += len(r.data)
	}
	for len(h.order) > 1 && (h.bytes > maxSharedBytes || len(h.order) > maxSharedRects) {
		old := h.order[0]
		h.order[0] = nil
		h.order = h.order[1:]
		if h.rects[old.key] == old {
			delete(h.rects, old.key)
			h.bytes -= len(old.data)
			dropped(len(old.data))
		}
	}
	h.mu.Unlock()
	close(r.done)
}

// encodeRect copies rectangle ro out of the mirror, records it as what the
// viewer has, and encodes it, or takes the bytes another session encoded
// for the same pixels and settings.
// keep asks for bytes that stay valid after the next encode (the hub's),
// shared or not.
func (s *session) encodeRect(ro rectOut, pf PixelFormat, pe pixelEncoding, keep bool) (int32, []byte) {
	return s.encodeWith(&s.enc, ro, pf, pe, keep, false)
}

// encodeWith is encodeRect on encoder e (the session's, or a helper's,
// which asks for stateless bytes: see parallel.go).
func (s *session) encodeWith(e *encoder, ro rectOut, pf PixelFormat, pe pixelEncoding, keep, stateless bool) (int32, []byte) {
	sum, ok := e.copyBand(s.cfg.Buffer, ro.r)
	if !ok || pe.enc != encTight || !keep && !s.hub.shared() {
		return e.encodeBand(ro, pf, pe, stateless)
	}
	r, first := s.hub.claim(shareKey{pf: pf, pe: pe, photo: ro.photo, r: ro.r, sum: sum})
	if first {
		enc, data := e.encodeBand(ro, pf, pe, true)
		s.hub.publish(r, enc, data)
		return r.enc, r.data // the hub's copy: data is reused by the next encode
	}
	<-r.done
	// The viewer's zlib stream was reset and fed by these bytes, not by
	// this session's: the next rectangle through it starts a new stream.
	e.tightZ.stale = true
	return r.enc, r.data
}

// onTick stretches a pacing wait to the next tick of a clock common to
// every session of the mirror (multiples of interval since the epoch), when
// the mirror has other sessions: sessions held back by their pacing then
// all wake at the same tick, read the same state and share its encoding.
// An update the pacing allows at once (the first after a quiet moment, a
// burst) goes at once: every session wakes on the change together anyway.
func (s *session) onTick(now time.Time, wait, interval time.Duration) time.Duration {
	if wait <= 0 || !s.hub.shared() {
		return wait
	}
	at, iv := now.Add(wait).UnixNano(), int64(interval)
	if r := at % iv; r != 0 {
		at += iv - r
	}
	return time.Duration(at - now.UnixNano())
}

// Whole updates are shared too. Sessions whose viewers have the same
// picture (their tile hashes hash alike: the state) and look at the mirror
// at the same change (its sequence) would plan the same update: the first
// plans and encodes it, the others take its rectangles, CopyRect
// included, and the tile hashes it leaves. Planning, not only encoding,
// is then done once a tick for every viewer in step.

// maxSharedUpdates is how many planned updates a hub keeps (one per group
// of settings is what is used); what they hold (rectangles and a copy of
// the tile hashes, 8 bytes per 64 pixels) is kept under maxSharedBytes.
const maxSharedUpdates = 8

type updateKey struct {
	pf       PixelFormat
	pe       pixelEncoding
	copyRect bool
	from     uint64 // the viewers' state before
	seq      uint64 // the mirror's change planned from
}

// sharedUpdate is one planned update; set before done is closed. ok false
// means the planner gave up (the update was too big to keep, or the
// mirror was resized): the others plan their own.
type sharedUpdate struct {
	key   updateKey
	done  chan struct{}
	once  sync.Once
	ok    bool
	rects []rectOut // encoded, in order
	sums  []uint64  // the tile hashes the update leaves
	size  int       // bytes held: rectangles and hashes
}

func (h *mirrorHub) claimUpdate(k updateKey) (*sharedUpdate, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, u := range h.updates {
		if u.key == k {
			return u, false
		}
	}
	u := &sharedUpdate{key: k, done: make(chan struct{})}
	h.updates = append(h.updates, u)
	h.trimUpdates()
	return u, true
}

// trimUpdates drops the oldest planned updates beyond maxSharedUpdates or
// maxSharedBytes (what they hold: rectangles and tile hashes). h.mu held.
func (h *mirrorHub) trimUpdates() {
	size := 0
	for _, u := range h.updates {
		size += u.size
	}
	for len(h.updates) > 1 && (len(h.updates) > maxSharedUpdates || size > maxSharedBytes) {
		size -= h.updates[0].size
		dropped(8 * len(h.updates[0].sums))
		h.updates[0] = nil
		h.updates = h.updates[1:]
	}
}

// publishUpdate ends u: whole (with its rectangles and the tile hashes
// they leave) or, with none, given up. Only the first call counts.
func (h *mirrorHub) publishUpdate(u *sharedUpdate, rects []rectOut, sums []uint64) {
	u.once.Do(func() {
		h.mu.Lock()
		if sums != nil {
			u.ok, u.rects, u.sums, u.size = true, rects, sums, 8*len(sums)
			for _, r := range rects {
				u.size += len(r.data)
			}
			h.trimUpdates()
		}
		h.mu.Unlock()
		close(u.done)
	})
}

// encodeAhead encodes the planned rectangles before they are written (so
// that the sessions waiting for them need not wait for this viewer's
// network) and publishes them with the tile hashes they leave. An update
// over maxSharedBytes is given up: the rest is encoded as it is written.
func (s *session) encodeAhead(u *sharedUpdate, rects []rectOut, pf PixelFormat, pe pixelEncoding) {
	n := 0
	for i := range rects {
		r := &rects[i]
		if r.enc == 0 {
			yieldToAgent()
			if j := s.photoRun(rects[i:], pe); j > 0 {
				s.encodePhotos(rects[i:i+j], pf, pe, true)
			} else {
				r.enc, r.data = s.encodeRect(*r, pf, pe, true)
			}
		}
		if n += len(r.data); n > maxSharedBytes || s.enc.w < 0 {
			return // the deferred publish gives it up
		}
	}
	s.hub.publishUpdate(u, slices.Clone(rects), slices.Clone(s.enc.sums))
}

// stateHash names the picture the viewer has: a hash of its tile hashes
// (never 0, which means unknown).
func (e *encoder) stateHash() uint64 {
	if len(e.sums) == 0 {
		return 0
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(e.sums))), len(e.sums)*8)
	return maphash.Bytes(seed, b) | 1
}
