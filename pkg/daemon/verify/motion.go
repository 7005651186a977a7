package verify

import (
	"context"
	"encoding/binary"
	"image"
	"math/bits"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/hoptrace"
)

// Motion is a desktop limb's record of background motion: which tiles of
// its screen change with no act behind them (a clock, a blinking caret, a
// log window, a progress bar), so an act's verification does not take
// them for its effect. One goroutine per desktop limb follows the
// mirror's damage and hashes each damaged tile: a repaint that left the
// pixels as they were is no change, and a tile that keeps going back to
// looks it showed before is blinking rather than moving.
type Motion struct {
	buf *fb.Buffer
	tr  *fb.Tracker
	now func() time.Time // time.Now; tests step it

	absorbMu sync.Mutex // one absorb at a time: the watcher's, or an act's flush
	scratch  []tileLook // absorb's damaged tiles, kept between calls
	changes  []tileLook // and those that changed (a watch copies what it is given)

	mu       sync.Mutex
	w, h     int
	cols     int
	coverage float64 // the mirror's at the last absorb
	tiles    []tileState
	acts     int       // acts being watched now
	quietEnd time.Time // changes before this may still be an act's effect
	watches  map[*actWatch]struct{}
	hints    inputHints
}

// tileState is one tile's history. Only changes no act could have caused
// (outside every act's watch and its grace) teach it, except that a tile
// already moving keeps learning during acts, so a busy agent does not let
// a ticking clock fade from the record.
type tileState struct {
	hash   uint64
	known  bool      // hash is the tile's look (not the cleared mirror before the first update)
	looks  [4]uint64 // looks it showed on its own, newest first
	nlooks uint8
	novel  uint8 // one bit per recent change on its own, newest lowest: 1 = to a look never shown before
	last   int64 // the two latest changes on its own, Unix nanoseconds (0: none)
	prev   int64
}

const (
	// actGrace: changes this long after an act's watch ended may still be
	// its slower effect (a menu fading in), so they teach the record
	// nothing new.
	actGrace = time.Second
	// A tile that changed twice on its own counts as moving for twice its
	// latest period after its latest change, within these bounds: a clock
	// ticking every second stays moving, a page that painted twice while
	// loading stops moving soon after.
	holdMin = 3 * time.Second
	holdMax = 30 * time.Second
)

// StartMotion keeps buf's motion record until ctx ends.
func StartMotion(ctx context.Context, buf *fb.Buffer) *Motion {
	m := newMotion(buf)
	go m.run(ctx)
	return m
}

func newMotion(buf *fb.Buffer) *Motion {
	return &Motion{buf: buf, tr: buf.NewTracker(), now: time.Now, watches: map[*actWatch]struct{}{}}
}

func (m *Motion) run(ctx context.Context) {
	defer m.tr.Close()
	for {
		changed := m.buf.Changed() // before absorb: a change between them is not lost
		m.absorb()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// tileLook is a damaged tile's index and the hash of its pixels.
type tileLook struct {
	i     int
	hash  uint64
	clear bool // the mirror's cleared pixels: nothing received there yet
}

// absorb takes the damage since the last call and updates the record and
// every act being watched.
func (m *Motion) absorb() {
	m.absorbMu.Lock()
	defer m.absorbMu.Unlock()
	rects, fills, other, resized := m.tr.TakeRectsFills()
	if len(rects) == 0 && !resized {
		return
	}
	hoptrace.Mark(m, "motion.absorb")
	defer hoptrace.Mark(m, "motion.absorbed")
	looks := m.scratch[:0]
	var w, h int
	cov := m.buf.Coverage()
	m.buf.Read(func(pix []byte, stride, bw, bh int, _ uint64) {
		w, h = bw, bh
		looks = lookAt(looks, pix, stride, w, h, rects, fills, other)
	})
	m.scratch = looks // absorbMu held: reused by the next absorb
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	defer func() { m.coverage = cov }()
	// A resize, or a reconnect clearing the mirror (its coverage drops),
	// starts every tile afresh.
	if resized || w != m.w || h != m.h || cov < m.coverage {
		m.restartLocked(w, h)
	}
	changed := m.noteLocked(looks, now)
	if len(changed) > 0 {
		for a := range m.watches {
			a.add(changed, now)
		}
	}
	m.changes = changed // absorbMu held: reused by the next absorb
}

// restartLocked starts every tile of a w×h frame afresh, and tells the
// acts being watched.
func (m *Motion) restartLocked(w, h int) {
	m.w, m.h = w, h
	m.cols = (w + fb.TileSize - 1) / fb.TileSize
	// Reused when big enough: a server flipping its size must not
	// leave a frame's worth of tile records behind on every flip.
	if n := m.cols * ((h + fb.TileSize - 1) / fb.TileSize); cap(m.tiles) >= n {
		m.tiles = m.tiles[:n]
		clear(m.tiles)
	} else {
		m.tiles = make([]tileState, n)
	}
	for a := range m.watches {
		a.resize()
	}
}

// noteLocked records the looks in each tile's state, learning its motion
// unless an act is under way (quiet), and returns the looks that changed
// a tile, for the acts being watched (none when no act is).
func (m *Motion) noteLocked(looks []tileLook, now time.Time) []tileLook {
	quiet := m.acts > 0 || now.Before(m.quietEnd)
	watched := len(m.watches) > 0 // only acts being watched want the changed tiles
	changed := m.changes[:0]
	for _, lk := range looks {
		if lk.i >= len(m.tiles) {
			continue
		}
		t := &m.tiles[lk.i]
		switch {
		case lk.clear && !t.known: // a redial cleared the mirror: not a look yet
			continue
		case !t.known:
			// The first look after a resize or a redial is where the tile
			// starts from, for the record. An act being watched still sees
			// it: a server that sends only what changes (FreeRDP's shadow)
			// shows a tile for the first time when something is drawn there.
			*t = tileState{hash: lk.hash, known: true, looks: [4]uint64{lk.hash}, nlooks: 1}
			if watched {
				changed = append(changed, lk)
			}
			continue
		case lk.hash == t.hash:
			continue // repainted as it was
		}
		if watched {
			changed = append(changed, lk)
		}
		if !quiet || t.moving(now) && (t.restless() || t.showed(lk.hash)) {
			t.learn(lk.hash, now)
		}
		t.hash = lk.hash
	}
	return changed
}

// lookAt appends the look of every tile rects touch in a w x h frame.
// The rects were taken from the tracker before the pixels were locked, so
// a resize that landed in between can leave them partly beyond the frame:
// only what is still inside is looked at.
func lookAt(looks []tileLook, pix []byte, stride, w, h int, rects []image.Rectangle, fills []fb.Fill, other image.Rectangle) []tileLook {
	var solid solidTiles
	cols := (w + fb.TileSize - 1) / fb.TileSize
	frame := image.Rect(0, 0, w, h)
	for _, r := range rects {
		if r = r.Intersect(frame); r.Empty() {
			continue
		}
		for ty := r.Min.Y / fb.TileSize; ty <= (r.Max.Y-1)/fb.TileSize; ty++ {
			for tx := r.Min.X / fb.TileSize; tx <= (r.Max.X-1)/fb.TileSize; tx++ {
				hash, clear, ok := solid.hash(fills, other, w, h, tx, ty)
				if !ok {
					hash, clear = hashTile(pix, stride, w, h, tx, ty)
				}
				looks = append(looks, tileLook{i: ty*cols + tx, hash: hash, clear: clear})
			}
		}
	}
	return looks
}

// hashTile hashes tile (tx, ty)'s pixels and says whether they are all
// the cleared mirror's (black, opaque). Four independent lanes of 8 bytes
// keep the multiplier busy: a full 1080p frame is a few milliseconds.
func hashTile(pix []byte, stride, w, h, tx, ty int) (uint64, bool) {
	const k = 0xff51afd7ed558ccd
	x0, y0 := tx*fb.TileSize, ty*fb.TileSize
	x1, y1 := min(x0+fb.TileSize, w), min(y0+fb.TileSize, h)
	h0, h1, h2, h3 := uint64(0x9e3779b97f4a7c15), uint64(0xc2b2ae3d27d4eb4f), uint64(0x165667b19e3779f9), uint64(0x27d4eb2f165667c5)
	var colour uint64
	const rgb = 0x00ffffff00ffffff
	for y := y0; y < y1; y++ {
		row := pix[y*stride+x0*4 : y*stride+x1*4]
		for len(row) >= 32 {
			v0, v1 := binary.LittleEndian.Uint64(row), binary.LittleEndian.Uint64(row[8:])
			v2, v3 := binary.LittleEndian.Uint64(row[16:]), binary.LittleEndian.Uint64(row[24:])
			colour |= (v0 | v1 | v2 | v3) & rgb
			h0 = bits.RotateLeft64((h0^v0)*k, 31)
			h1 = bits.RotateLeft64((h1^v1)*k, 31)
			h2 = bits.RotateLeft64((h2^v2)*k, 31)
			h3 = bits.RotateLeft64((h3^v3)*k, 31)
			row = row[32:]
		}
		for len(row) >= 4 { // a tile cut by the frame's right edge
			v := uint64(binary.LittleEndian.Uint32(row))
			colour |= v & 0x00ffffff
			h0 = bits.RotateLeft64((h0^v)*k, 31)
			row = row[4:]
		}
		h1 ^= uint64(y) // rows of different widths never hash alike by accident
	}
	hash := (h0 ^ bits.RotateLeft64(h1, 17) ^ bits.RotateLeft64(h2, 29) ^ bits.RotateLeft64(h3, 43)) * k
	return hash ^ hash>>33, colour == 0
}

// solidTiles hashes tiles the mirror's writer painted with one colour (its
// known fills) without reading them: such a tile hashes as any tile of
// its width and rows in that colour does, so one hash serves a tile row.
type solidTiles struct {
	row       [fb.TileSize * 4]byte
	c         [4]byte
	ty, width int
	hashed    bool
	sum       uint64
	clear     bool
}

// hash is tile (tx, ty)'s hash when the latest fill over it covers it
// whole and no other damage touches it (ok false: read its pixels).
func (s *solidTiles) hash(fills []fb.Fill, other image.Rectangle, w, h, tx, ty int) (sum uint64, clear, ok bool) {
	t := image.Rect(tx*fb.TileSize, ty*fb.TileSize, (tx+1)*fb.TileSize, (ty+1)*fb.TileSize).Intersect(image.Rect(0, 0, w, h))
	if t.Overlaps(other) {
		return 0, false, false
	}
	for i := len(fills) - 1; i >= 0; i-- {
		f := fills[i]
		if !f.R.Overlaps(t) {
			continue
		}
		if !t.In(f.R) {
			return 0, false, false
		}
		if !s.hashed || s.c != f.C || s.ty != ty || s.width != t.Dx() {
			for j := 0; j < len(s.row); j += 4 {
				copy(s.row[j:j+4], f.C[:])
			}
			// A stride of 0 reads the one row for every row of the tile.
			s.sum, s.clear = hashTile(s.row[:], 0, t.Dx(), h, 0, ty)
			s.c, s.ty, s.width, s.hashed = f.C, ty, t.Dx(), true
		}
		return s.sum, s.clear, true
	}
	return 0, false, false
}

// learn records a change no act caused.
func (t *tileState) learn(hash uint64, now time.Time) {
	t.novel <<= 1
	if !t.showed(hash) {
		t.novel |= 1
		copy(t.looks[1:], t.looks[:3])
		t.looks[0] = hash
		t.nlooks = min(t.nlooks+1, 4)
	}
	t.prev, t.last = t.last, now.UnixNano()
}

func (t *tileState) showed(hash uint64) bool {
	for _, h := range t.looks[:t.nlooks] {
		if h == hash {
			return true
		}
	}
	return false
}

// moving: the tile changed on its own at least twice, the latest recently
// enough for its pace.
func (t *tileState) moving(now time.Time) bool {
	if t.prev == 0 {
		return false
	}
	hold := min(max(2*time.Duration(t.last-t.prev), holdMin), holdMax)
	return time.Duration(now.UnixNano()-t.last) <= hold
}

// restless: at least two of its last four changes on its own showed
// something new (a clock's hand, scrolling text); a blinking caret only
// goes back and forth between two looks.
func (t *tileState) restless() bool { return bits.OnesCount8(t.novel&0x0f) >= 2 }

// Tile classes in an act's snapshot of the record.
const (
	tileStill    = iota
	tileBlinking // changes among looks it showed before; a new look is news
	tileMoving   // restless, or next to a restless tile: any change is its own
)

// snapshotLocked classifies every tile as the act begins, and keeps the
// looks of the blinking ones. A moving area is the bounding box of a
// cluster of restless tiles, one tile wider: a clock's hand sweeps on from
// where it was, a log writes its next line under the last.
func (m *Motion) snapshotLocked(now time.Time) (class []uint8, looks map[int][4]uint64) {
	class = make([]uint8, len(m.tiles))
	looks = map[int][4]uint64{}
	rows := 0
	if m.cols > 0 {
		rows = len(m.tiles) / m.cols
	}
	restless := map[int]bool{}
	for i := range m.tiles {
		t := &m.tiles[i]
		switch {
		case !t.moving(now):
		case t.restless():
			restless[i] = true
		default:
			class[i] = tileBlinking
			looks[i] = t.looks
		}
	}
	for _, box := range tileClusters(restless, m.cols, rows, 2) {
		for y := max(box.Min.Y-1, 0); y < min(box.Max.Y+1, rows); y++ {
			for x := max(box.Min.X-1, 0); x < min(box.Max.X+1, m.cols); x++ {
				class[y*m.cols+x] = tileMoving
				delete(looks, y*m.cols+x)
			}
		}
	}
	return class, looks
}

// tileRect is tile i's rectangle on a frame cols tiles wide, clipped to w x h.
func tileRect(i, cols, w, h int) image.Rectangle {
	x, y := (i%cols)*fb.TileSize, (i/cols)*fb.TileSize
	return image.Rect(x, y, min(x+fb.TileSize, w), min(y+fb.TileSize, h))
}
