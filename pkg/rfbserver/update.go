package rfbserver

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"image"
	"time"
)

// tile is the side of the squares compared against the viewer's copy, and
// ZRLE's tile size.
const tile = 64

// encoder holds what the viewer's framebuffer holds (shadow, RGBA) so only
// pixels that really changed are sent, and the viewer's zlib stream.
type encoder struct {
	shadow []byte
	w, h   int
	zbuf   bytes.Buffer
	zw     *zlib.Writer
}

// rectOut is one rectangle of an update, payload ready.
type rectOut struct {
	r    image.Rectangle
	enc  int32
	data []byte
}

// maybeUpdate sends one FramebufferUpdate when the viewer asked for one
// and there is something to send.
func (s *session) maybeUpdate() error {
	s.mu.Lock()
	if !s.want {
		s.mu.Unlock()
		return nil
	}
	pf, encs, full, cursorDue := s.pf, s.encodings, s.full || s.pfChanged, !s.cursorSent && s.wants(s.encodings, encCursor)
	s.mu.Unlock()
	d := s.tracker.Take()
	if !full && d.Bounds.Empty() && !d.Resized && !cursorDue && s.enc.w != 0 {
		return nil // an incremental request waits for a change
	}
	e := &s.enc
	var rects []rectOut
	resized := false
	s.cfg.Buffer.Read(func(pix []byte, stride, w, h int, _ uint64) {
		if w != e.w || h != e.h {
			resized = e.w != 0 || e.h != 0
			e.w, e.h = w, h
			e.shadow = make([]byte, w*h*4)
			full = true
		}
		if full {
			copy(e.shadow, pix[:w*h*4])
			if w > 0 && h > 0 {
				rects = append(rects, rectOut{r: image.Rect(0, 0, w, h)})
			}
			return
		}
		area := alignTiles(d.Bounds).Intersect(image.Rect(0, 0, w, h))
		if s.wants(encs, encCopyRect) {
			if cr, ok := e.findScroll(pix, area); ok {
				rects = append(rects, cr)
			}
		}
		rects = append(rects, e.diff(pix, area)...)
	})
	if resized && !s.wants(encs, encDesktopSize) {
		return fmt.Errorf("rfbserver: the desktop was resized to %dx%d and the viewer does not support DesktopSize", e.w, e.h)
	}
	var out []rectOut
	if resized {
		out = append(out, rectOut{r: image.Rect(0, 0, e.w, e.h), enc: encDesktopSize})
	}
	if cursorDue {
		out = append(out, s.cursorRect(pf))
	}
	useZRLE := preferZRLE(encs)
	for _, r := range rects {
		if r.enc == encCopyRect {
			out = append(out, r)
			continue
		}
		if useZRLE {
			r.enc, r.data = encZRLE, e.zrle(pf, r.r)
		} else {
			r.enc, r.data = encRaw, pf.appendRect(nil, e.shadow, e.w*4, r.r.Min.X, r.r.Min.Y, r.r.Dx(), r.r.Dy(), pf.pixelSize(), 0)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil
	}
	s.mu.Lock()
	s.want, s.full, s.pfChanged = false, false, false
	if cursorDue {
		s.cursorSent = true
	}
	s.mu.Unlock()
	return s.write(out)
}

func (s *session) write(rects []rectOut) error {
	msg := []byte{0, 0}
	for len(rects) > 0 {
		n := min(len(rects), 0xffff)
		m := binary.BigEndian.AppendUint16(msg, uint16(n))
		for _, r := range rects[:n] {
			m = binary.BigEndian.AppendUint16(m, uint16(r.r.Min.X))
			m = binary.BigEndian.AppendUint16(m, uint16(r.r.Min.Y))
			m = binary.BigEndian.AppendUint16(m, uint16(r.r.Dx()))
			m = binary.BigEndian.AppendUint16(m, uint16(r.r.Dy()))
			m = binary.BigEndian.AppendUint32(m, uint32(r.enc))
			m = append(m, r.data...)
		}
		s.conn.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		if _, err := s.conn.Write(m); err != nil {
			return err
		}
		if s.cfg.OnUpdate != nil {
			s.cfg.OnUpdate(len(m))
		}
		rects = rects[n:]
	}
	return nil
}

// preferZRLE follows the viewer's order between the two pixel encodings
// served; a viewer naming neither gets Raw, which every viewer reads.
func preferZRLE(encs []int32) bool {
	for _, e := range encs {
		switch e {
		case encZRLE:
			return true
		case encRaw:
			return false
		}
	}
	return false
}

func alignTiles(r image.Rectangle) image.Rectangle {
	if r.Empty() {
		return r
	}
	return image.Rect(r.Min.X/tile*tile, r.Min.Y/tile*tile, (r.Max.X+tile-1)/tile*tile, (r.Max.Y+tile-1)/tile*tile)
}

// diff copies the tiles of area that differ from the shadow into it and
// returns them as rectangles, neighbours on a row merged.
func (e *encoder) diff(pix []byte, area image.Rectangle) []rectOut {
	var out []rectOut
	stride := e.w * 4
	for ty := area.Min.Y; ty < area.Max.Y; ty += tile {
		th := min(tile, area.Max.Y-ty)
		run := image.Rectangle{}
		for tx := area.Min.X; tx < area.Max.X; tx += tile {
			tw := min(tile, area.Max.X-tx)
			changed := false
			for y := ty; y < ty+th; y++ {
				o := y*stride + tx*4
				if !bytes.Equal(pix[o:o+tw*4], e.shadow[o:o+tw*4]) {
					changed = true
					break
				}
			}
			if !changed {
				if !run.Empty() {
					out = append(out, rectOut{r: run})
					run = image.Rectangle{}
				}
				continue
			}
			for y := ty; y < ty+th; y++ {
				o := y*stride + tx*4
				copy(e.shadow[o:o+tw*4], pix[o:o+tw*4])
			}
			run = run.Union(image.Rect(tx, ty, tx+tw, ty+th))
		}
		if !run.Empty() {
			out = append(out, rectOut{r: run})
		}
	}
	return out
}
