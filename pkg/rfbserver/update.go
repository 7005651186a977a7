package rfbserver

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"image"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/hoptrace"
	"github.com/dvvhq/dvv/pkg/jpegenc"
)

// tile is the side of the squares compared against the viewer's copy, and
// ZRLE's tile size.
const tile = 64

// maxPieceWidth bounds a pixel rectangle's width (a multiple of tile):
// with rectangles at most one tile high, the pixels of one rectangle in
// flight, and so a session's buffers, stay under 1 MiB whatever the
// desktop's size.
const maxPieceWidth = 64 * tile

// encoder is one viewer's state. It keeps no copy of the viewer's pixels,
// only a hash of every row segment of every tile column (sums): what a
// viewer has is compared by hash, the pixels sent are copied out of the
// limb's mirror one rectangle at a time (band), so a session costs
// 8 bytes per 64 pixels of the frame plus buffers bounded by one
// rectangle, not a frame or two.
type encoder struct {
	w, h, cols int
	sums       []uint64 // [y*cols+c]: hash of row y of tile column c as the viewer has it
	newRows    []uint64 // findScroll's: combined hash of each row of the area, now
	oldRows    []uint64 // and as the viewer has it
	band       []byte   // the rectangle being encoded, RGBA
	stride     int      // of band
	out        []byte   // the rectangle's payload
	raw        []byte   // ZRLE's tiles before zlib
	zbuf       bytes.Buffer
	zw         *zlib.Writer
	colours    *colourSet       // Tight's palette of the rectangle
	tightZ     tightStream      // Tight's zlib stream
	jpeg       *jpegenc.Encoder // Tight's JPEG, made on first use
	jbuf       []byte           // and its output
	state      uint64           // a hash of sums when the mirror has other sessions, else 0
}

var seed = maphash.MakeSeed()

// reset sizes the encoder for a w×h frame of which the viewer has nothing.
func (e *encoder) reset(w, h int) {
	e.w, e.h, e.cols = w, h, (w+tile-1)/tile
	e.sums = make([]uint64, h*e.cols)
}

// segment is row y of tile column c of a frame (stride bytes a row).
func (e *encoder) segment(pix []byte, stride, y, c int) []byte {
	x0, x1 := c*tile, min((c+1)*tile, e.w)
	return pix[y*stride+x0*4 : y*stride+x1*4]
}

// rectOut is one rectangle of an update: its payload is ready (data) or,
// for pixels (enc 0), encoded when it is written.
type rectOut struct {
	r     image.Rectangle
	enc   int32
	data  []byte
	photo bool // Tight: photographic, send as JPEG when the viewer allows
}

// maybeUpdate sends one FramebufferUpdate when the viewer asked for one
// and there is something to send: what was asked, the damage since the
// last update, the plan of what changed (or another session's plan of
// the same change), the messages that go before the pixels, the write.
func (s *session) maybeUpdate() error {
	if err := s.endContinuousNotice(); err != nil {
		return err
	}
	a, ok := s.takeAsk()
	if !ok {
		return nil
	}
	yieldToAgent()
	hoptrace.Mark(s, "take")
	d := s.tracker.Take() // exactly the damage up to d.Seq
	if a.waits(d, s.enc.w > 0) {
		return nil
	}
	e := &s.enc
	pe := pixelEncodingOf(a.encs)
	// The mirror's read lock is taken for one tile row (or one row) at a
	// time, never for the whole planning: its writer, and an agent's
	// screen queued behind that writer, wait microseconds, not the
	// planning of every viewer.
	w, h := s.cfg.Buffer.Size()
	resized := false
	if w != e.w || h != e.h {
		resized = e.w != 0 || e.h != 0
		e.reset(w, h)
		a.full = true
	}
	owned, rects, planned := s.sharedPlan(a, pe, d.Seq)
	if owned != nil {
		defer s.hub.publishUpdate(owned, nil, nil) // unless published whole below
	}
	if !planned {
		rects = s.plan(rects, a, pe, d, w, h)
	}
	if hoptrace.On() {
		hoptrace.Mark(s, fmt.Sprintf("planned(fills=%d,other=%v,rects=%d)", len(d.Fills), d.Other, len(rects)))
	}
	if owned != nil && e.w == w && e.h == h {
		s.encodeAhead(owned, rects, a.pf, pe)
	}
	if e.w != w || e.h != h {
		// Resized while planning: the next update sends the new size and
		// everything.
		s.poke()
		return nil
	}
	if resized && !a.ext && !s.wants(a.encs, encDesktopSize) {
		return fmt.Errorf("rfbserver: the desktop was resized to %dx%d and the viewer does not support DesktopSize", e.w, e.h)
	}
	out := append(s.leadRects(a, resized), rects...)
	if len(out) == 0 {
		return nil
	}
	return s.send(out, a, pe)
}

// updateAsk is what the viewer asked for, read under the session's lock.
type updateAsk struct {
	pf        PixelFormat
	encs      []int32
	full      bool    // the whole frame (a non-incremental request, a new pixel format)
	cur       *Cursor // the pointer's shape now
	cursorDue bool    // and the viewer does not have it
	ext       bool    // the viewer takes ExtendedDesktopSize
	extDue    bool    // and has not had the desktop's layout yet
	refusals  int     // SetDesktopSize requests to refuse
}

// waits reports whether an incremental request waits for a change: no
// damage, nothing else due, and the viewer has a frame (hasFrame).
func (a updateAsk) waits(d fb.Damage, hasFrame bool) bool {
	return !a.full && d.Bounds.Empty() && !d.Resized && !a.cursorDue && !a.extDue && a.refusals == 0 && hasFrame
}

// endContinuousNotice sends EndOfContinuousUpdates when it is due: once
// to say the server has them, and after the viewer turned them off.
func (s *session) endContinuousNotice() error {
	s.mu.Lock()
	due := s.cuOffered || s.cuEnded
	s.cuOffered, s.cuEnded = false, false
	s.mu.Unlock()
	if !due {
		return nil
	}
	return s.writeMsg([]byte{150})
}

// takeAsk reads what the viewer asked for, and whether an update is
// wanted at all (a request, or continuous updates with room in flight).
func (s *session) takeAsk() (updateAsk, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cont := s.cont && s.inFlight < maxInFlight
	if !s.want && !cont {
		return updateAsk{}, false
	}
	cur := s.cursor()
	a := updateAsk{
		pf: s.pf, encs: s.encodings, full: s.full || s.pfChanged, cur: cur,
		cursorDue: (!s.cursorSent || cur.Image != s.cursorImg) && s.wants(s.encodings, encCursor),
		ext:       s.wants(s.encodings, encExtDesktop),
		refusals:  s.resizeAsked,
	}
	a.extDue = a.ext && !s.extSent
	s.resizeAsked = 0
	return a, true
}

// sharedPlan takes the plan of another session of the mirror that had the
// same pixels and asks for the same encoding (planned), or claims this
// update for the others to take (owned, to be published).
func (s *session) sharedPlan(a updateAsk, pe pixelEncoding, seq uint64) (owned *sharedUpdate, rects []rectOut, planned bool) {
	e := &s.enc
	if a.full || e.state == 0 || pe.enc != encTight || !s.hub.shared() {
		return nil, nil, false
	}
	k := updateKey{pf: a.pf, pe: pe, copyRect: s.wants(a.encs, encCopyRect), from: e.state, seq: seq}
	u, first := s.hub.claimUpdate(k)
	if first {
		return u, nil, false
	}
	if <-u.done; !u.ok {
		return nil, nil, false
	}
	copy(e.sums, u.sums)
	e.tightZ.stale = true // the viewer's zlib stream gets another's bytes
	return nil, append([]rectOut(nil), u.rects...), true
}

// plan lists what changed: everything when full, else the damage's
// fills, a scroll, and the tiles whose pixels differ from the viewer's,
// cut for the encoding.
func (s *session) plan(rects []rectOut, a updateAsk, pe pixelEncoding, d fb.Damage, w, h int) []rectOut {
	e, buf := &s.enc, s.cfg.Buffer
	if a.full {
		rects = appendPieces(rects, image.Rect(0, 0, w, h))
	} else {
		bounds := d.Bounds
		var strips []image.Rectangle
		if pe.enc == encTight && len(d.Fills) > 0 {
			// What the mirror's writer knows was painted one colour goes
			// as Tight fills without a look at its pixels; only the rest
			// is compared.
			rects, strips = e.applyFills(rects, d.Fills, a.pf)
			bounds = d.Other
		}
		area := alignTiles(bounds).Intersect(image.Rect(0, 0, w, h))
		if s.wants(a.encs, encCopyRect) {
			if cr, ok := e.findScroll(buf, area); ok {
				rects = append(rects, cr)
			}
		}
		rects = e.diff(rects, buf, area)
		for _, st := range strips {
			rects = e.diff(rects, buf, st)
		}
	}
	plans.Add(1)
	if pe.enc != encTight {
		return rects
	}
	if pe.tight.quality >= 0 {
		rects = e.splitPhoto(rects, buf)
	}
	return splitForTight(rects)
}

// leadRects are the pseudo-rectangles that go before the pixels: refused
// resizes, the new size, the pointer's shape.
func (s *session) leadRects(a updateAsk, resized bool) []rectOut {
	e := &s.enc
	var out []rectOut
	for range a.refusals { // reason 1 (a viewer asked), status 1 (prohibited)
		out = append(out, rectOut{r: image.Rect(1, 1, 1+e.w, 1+e.h), enc: encExtDesktop, data: screenLayout(e.w, e.h)})
	}
	switch {
	case a.ext && (resized || a.extDue):
		out = append(out, rectOut{r: image.Rect(0, 0, e.w, e.h), enc: encExtDesktop, data: screenLayout(e.w, e.h)})
	case resized:
		out = append(out, rectOut{r: image.Rect(0, 0, e.w, e.h), enc: encDesktopSize})
	}
	if a.cursorDue {
		out = append(out, cursorRect(a.cur, a.pf))
	}
	return out
}

// send records the update as answered and writes it, with a fence behind
// it when updates are pushed.
func (s *session) send(out []rectOut, a updateAsk, pe pixelEncoding) error {
	e := &s.enc
	s.mu.Lock()
	s.want, s.full, s.pfChanged = false, false, false
	if a.cursorDue {
		s.cursorSent, s.cursorImg = true, a.cur.Image
	}
	s.extSent = s.extSent || a.ext
	fence := s.cont
	if fence {
		s.inFlight++
	}
	s.mu.Unlock()
	var tail []byte
	if fence {
		// The viewer answers once it has read the update: until then this
		// update counts as in flight. It goes in the update's last write:
		// one message for the browser to take, not two.
		tail = fenceMsg
	}
	err := s.write(out, a.pf, pe, tail)
	hoptrace.Mark(s, "written")
	e.state = 0
	if s.hub.shared() {
		e.state = e.stateHash()
	}
	return err
}

// fenceMsg is the ServerFence sent after each pushed update: a request
// (the viewer answers it) with no flag the viewer must act on.
var fenceMsg = []byte{248, 0, 0, 0, 0x80, 0, 0, 0, 1, 'u'}

// screenLayout is ExtendedDesktopSize's payload: one screen covering the
// w×h desktop.
func screenLayout(w, h int) []byte {
	b := []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	b = binary.BigEndian.AppendUint16(b, uint16(w))
	b = binary.BigEndian.AppendUint16(b, uint16(h))
	return append(b, 0, 0, 0, 0)
}

// maxInFlight is how many pushed updates may go unanswered: one, as with
// requests, so a viewer slower than the desktop gets fewer frames rather
// than a queue, without the round trip a request costs.
const maxInFlight = 1

// writeMsg sends one whole server message.
func (s *session) writeMsg(b []byte) error {
	if s.w == nil {
		s.w = bufio.NewWriterSize(s.conn, 64<<10)
	}
	s.conn.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
	s.w.Write(b)
	return s.w.Flush()
}

// write sends the rectangles, encoding each pixel rectangle only when its
// turn comes, so one rectangle's pixels are in memory at a time, and then
// tail (a message to follow the update) in the same last write.
func (s *session) write(rects []rectOut, pf PixelFormat, pe pixelEncoding, tail []byte) error {
	if s.w == nil {
		s.w = bufio.NewWriterSize(s.conn, 64<<10)
	}
	var hdr [12]byte
	sent := 0
	defer s.returnHelpers()
	for len(rects) > 0 {
		n := min(len(rects), 0xffff)
		s.conn.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		s.w.Write([]byte{0, 0, byte(n >> 8), byte(n)})
		for i := range rects[:n] {
			r := &rects[i]
			enc, data := r.enc, r.data
			if enc == 0 {
				yieldToAgent() // also between the rectangles of a big update
				if j := s.photoRun(rects[i:n], pe); j > 0 {
					s.encodePhotos(rects[i:i+j], pf, pe, false)
					enc, data = r.enc, r.data
				} else {
					enc, data = s.encodeRect(*r, pf, pe, false)
				}
			}
			binary.BigEndian.PutUint16(hdr[0:], uint16(r.r.Min.X))
			binary.BigEndian.PutUint16(hdr[2:], uint16(r.r.Min.Y))
			binary.BigEndian.PutUint16(hdr[4:], uint16(r.r.Dx()))
			binary.BigEndian.PutUint16(hdr[6:], uint16(r.r.Dy()))
			binary.BigEndian.PutUint32(hdr[8:], uint32(enc))
			// Each rectangle's write gets the whole timeout: a viewer is
			// dropped when it stops reading, not for a big update.
			s.conn.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
			s.w.Write(hdr[:])
			if _, err := s.w.Write(data); err != nil {
				return err
			}
			// Written: a big update's bytes are not all held until its end.
			r.data = nil
			sent += len(hdr) + len(data)
		}
		if len(rects) == n {
			s.w.Write(tail)
		}
		if err := s.w.Flush(); err != nil {
			return err
		}
		sent += 4
		rects = rects[n:]
	}
	s.updates++
	if s.cfg.OnUpdate != nil {
		s.cfg.OnUpdate(sent)
	}
	return nil
}

// copyBand copies rectangle r out of the mirror into the band, records it
// as what the viewer has, and returns a hash of what it copied. A mirror
// resized since the update was planned gives r black (ok false); the size
// mismatch then makes the next update a DesktopSize and a full frame.
func (e *encoder) copyBand(buf frameReader, r image.Rectangle) (sum uint64, ok bool) {
	e.stride = r.Dx() * 4
	e.band = grow(e.band, e.stride*r.Dy())
	ok = e.read(buf, func(pix []byte, stride int) {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			copy(e.band[(y-r.Min.Y)*e.stride:], pix[y*stride+r.Min.X*4:y*stride+r.Max.X*4])
			for c := r.Min.X / tile; c < (r.Max.X+tile-1)/tile; c++ {
				h := maphash.Bytes(seed, e.segment(pix, stride, y, c))
				e.sums[y*e.cols+c] = h
				sum = mix(sum + h)
			}
		}
	})
	if !ok {
		clear(e.band)
	}
	return sum, ok
}

// encodeBand encodes the band copied for ro. stateless asks for bytes that
// do not depend on what this session sent before (see shared.go).
func (e *encoder) encodeBand(ro rectOut, pf PixelFormat, pe pixelEncoding, stateless bool) (int32, []byte) {
	encodes.Add(1)
	r := ro.r
	local := image.Rect(0, 0, r.Dx(), r.Dy())
	switch pe.enc {
	case encZRLE:
		return encZRLE, e.zrle(pf, local)
	case encTight:
		e.out = e.tight(pf, r.Dx(), r.Dy(), pe.tight, ro.photo, stateless)
		return encTight, e.out
	}
	e.out = pf.appendRect(e.out[:0], e.band, e.stride, 0, 0, r.Dx(), r.Dy(), pf.pixelSize(), 0)
	return encRaw, e.out
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// appendPieces appends r cut into rectangles at most one tile row high
// (cut at multiples of tile) and maxPieceWidth wide.
func appendPieces(out []rectOut, r image.Rectangle) []rectOut {
	for y := r.Min.Y; y < r.Max.Y; y = (y/tile + 1) * tile {
		y1 := min((y/tile+1)*tile, r.Max.Y)
		for x := r.Min.X; x < r.Max.X; x += maxPieceWidth {
			out = append(out, rectOut{r: image.Rect(x, y, min(x+maxPieceWidth, r.Max.X), y1)})
		}
	}
	return out
}

// pixelEncoding is how pixel rectangles are sent to a viewer.
type pixelEncoding struct {
	enc   int32
	tight tightOptions
}

// pixelEncodingOf follows the viewer's order among the pixel encodings
// served; a viewer naming none gets Raw, which every viewer reads.
func pixelEncodingOf(encs []int32) pixelEncoding {
	for _, e := range encs {
		switch e {
		case encZRLE, encRaw:
			return pixelEncoding{enc: e}
		case encTight:
			return pixelEncoding{enc: e, tight: tightOptionsOf(encs)}
		}
	}
	return pixelEncoding{enc: encRaw}
}

func alignTiles(r image.Rectangle) image.Rectangle {
	if r.Empty() {
		return r
	}
	return image.Rect(r.Min.X/tile*tile, r.Min.Y/tile*tile, (r.Max.X+tile-1)/tile*tile, (r.Max.Y+tile-1)/tile*tile)
}

// frameReader is the mirror as the encoder reads it.
type frameReader interface {
	Read(func(pix []byte, stride, w, h int, seq uint64))
}

// read runs fn with the mirror's pixels under its read lock when the
// mirror is still the size the viewer has, and reports whether it was.
// A mirror resized meanwhile leaves the encoder sized -1×-1: the next
// update sends the new size and everything.
func (e *encoder) read(buf frameReader, fn func(pix []byte, stride int)) bool {
	ok := false
	buf.Read(func(pix []byte, stride, w, h int, _ uint64) {
		if w == e.w && h == e.h {
			ok = true
			fn(pix, stride)
		}
	})
	if !ok {
		e.w, e.h = -1, -1
	}
	return ok
}

// diff appends the tiles of area whose pixels differ from what the viewer
// has (by hash), neighbours on a row merged.
func (e *encoder) diff(out []rectOut, buf frameReader, area image.Rectangle) []rectOut {
	for ty := area.Min.Y; ty < area.Max.Y; ty += tile {
		th := min(tile, area.Max.Y-ty)
		run := image.Rectangle{}
		ok := e.read(buf, func(pix []byte, stride int) {
			for tx := area.Min.X; tx < area.Max.X; tx += tile {
				tw := min(tile, area.Max.X-tx)
				changed := false
				for y := ty; y < ty+th && !changed; y++ {
					changed = maphash.Bytes(seed, e.segment(pix, stride, y, tx/tile)) != e.sums[y*e.cols+tx/tile]
				}
				if changed {
					run = run.Union(image.Rect(tx, ty, tx+tw, ty+th))
					continue
				}
				if !run.Empty() {
					out = appendPieces(out, run)
					run = image.Rectangle{}
				}
			}
		})
		if !ok {
			return out
		}
		if !run.Empty() {
			out = appendPieces(out, run)
		}
	}
	return out
}
