package rfbserver

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Photographs are the costly rectangles: a 1024x768 photograph as JPEG at
// full chroma (level 6 and up) takes about 30 ms of one core, video far
// more on a big desktop. A run of photographic rectangles in an update is
// therefore copied and encoded on several cores at once, a window of at
// most one rectangle per core, and written in order. The session's own
// encoder takes the window's first rectangle; helper encoders, shared by
// all sessions, take the others. A window's bytes stay lent to the
// session until it has written them, so memory stays bounded by one
// rectangle per core, as one rectangle bounds a session's own.

// maxPhotoWindow bounds a window (and the idle helpers kept).
const maxPhotoWindow = 8

// minWindowPixels is the least a window must hold: below it one core
// finishes before the hand-off to others pays.
const minWindowPixels = 64 * 1024

// photoWorkers is how many rectangles a window holds (tests set it).
var photoWorkers atomic.Int64

func init() { photoWorkers.Store(int64(min(runtime.GOMAXPROCS(0), maxPhotoWindow))) }

// photoWindows counts the windows encoded on several cores (tests read it).
var photoWindows atomic.Int64

// helpers are idle helper encoders. At most photoWorkers are in use at
// once across all sessions (more would not run sooner), so however many
// viewers watch however big a desktop, helpers hold at most that many
// rectangles' buffers; at most maxPhotoWindow idle ones are kept.
var (
	helpers    = make(chan *encoder, maxPhotoWindow)
	helpersOut atomic.Int64
)

// reserveHelpers reserves up to n helpers and returns how many it got.
func reserveHelpers(n int) int {
	for {
		out := helpersOut.Load()
		k := min(int64(n), photoWorkers.Load()-out)
		if k <= 0 {
			return 0
		}
		if helpersOut.CompareAndSwap(out, out+k) {
			return int(k)
		}
	}
}

// takeHelper is a reserved helper.
func takeHelper() *encoder {
	select {
	case h := <-helpers:
		return h
	default:
		return &encoder{}
	}
}

// putHelper ends a helper's reservation.
func putHelper(h *encoder) {
	h.sums = nil // the session's, not the helper's
	select {
	case helpers <- h:
	default:
	}
	helpersOut.Add(-1)
}

// photoRun is how many of rs, from the first, go in one window: unencoded
// photographic Tight rectangles, on whole tile columns (so no two write
// the same row hashes), at least two and minWindowPixels; else 0.
func (s *session) photoRun(rs []rectOut, pe pixelEncoding) int {
	workers := int(photoWorkers.Load())
	if workers < 2 || pe.enc != encTight || pe.tight.quality < 0 {
		return 0
	}
	n, px := 0, 0
	for _, r := range rs {
		if n == workers || r.enc != 0 || !r.photo || r.r.Min.X%tile != 0 || r.r.Max.X%tile != 0 && r.r.Max.X != s.enc.w {
			break
		}
		n, px = n+1, px+r.r.Dx()*r.r.Dy()
	}
	if n < 2 || px < minWindowPixels {
		return 0
	}
	return n
}

// encodePhotos copies and encodes the window's rectangles at once, setting
// each one's enc and data: the first always, the others as far as helpers
// are free (the rest are encoded at their turn). keep asks for bytes that
// outlive the window (the hub's copies); otherwise the helpers' bytes are
// lent until returnHelpers.
func (s *session) encodePhotos(win []rectOut, pf PixelFormat, pe pixelEncoding, keep bool) {
	s.returnHelpers() // the previous window is written
	win = win[:1+reserveHelpers(len(win)-1)]
	if len(win) == 1 {
		win[0].enc, win[0].data = s.encodeRect(win[0], pf, pe, keep)
		return
	}
	photoWindows.Add(1)
	e := &s.enc
	var wg sync.WaitGroup
	for k := 1; k < len(win); k++ {
		h := takeHelper()
		h.w, h.h, h.cols, h.sums = e.w, e.h, e.cols, e.sums
		s.lent = append(s.lent, h)
		wg.Add(1)
		go func(ro *rectOut) {
			defer wg.Done()
			// Stateless: the viewer's zlib stream is the session's, and a
			// helper's bytes must not depend on it.
			ro.enc, ro.data = s.encodeWith(h, *ro, pf, pe, keep, true)
		}(&win[k])
	}
	win[0].enc, win[0].data = s.encodeRect(win[0], pf, pe, keep)
	wg.Wait()
	for _, h := range s.lent {
		if h.w < 0 { // the mirror was resized under a helper: as copyBand says
			e.w, e.h = -1, -1
		}
	}
	// A helper's rectangle that was not JPEG reset the viewer's stream.
	e.tightZ.stale = true
	if keep { // the bytes are the hub's copies
		s.returnHelpers()
	}
}

// returnHelpers gives back the helpers whose bytes have been written.
func (s *session) returnHelpers() {
	for _, h := range s.lent {
		putHelper(h)
	}
	s.lent = s.lent[:0]
}
