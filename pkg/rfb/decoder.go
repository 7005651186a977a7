package rfb

import (
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
)

// Cursor is the pointer image the server asked the client to draw. It is
// kept apart from the framebuffer, never painted into it.
type Cursor struct {
	Hotspot image.Point
	Image   *image.RGBA // nil for an invisible cursor
}

// LEDs is the keyboard lock state reported by the server.
type LEDs struct {
	Scroll, Num, Caps bool
}

// decoder turns FramebufferUpdate messages into pixels on its surface. It is
// a pure function of the byte stream and its own state, so each decoder can
// be fuzzed on its own; effects beyond pixels go through the hooks.
type decoder struct {
	s      surface
	zlib   zstream
	zrle   zstream
	tight  [4]zstream
	damage []image.Rectangle
	fills  []fb.Fill // rectangles the server sent as one colour (not in damage)
	filled bool      // the Tight rectangle just decoded was a fill, of colour fill
	fill   [4]byte
	buf    []byte     // per-decoder scratch
	limit  *fb.Buffer // whose size limit a server-announced size must meet

	onResize     func(w, h int)
	onCursor     func(Cursor)
	onLEDs       func(LEDs)
	onName       func(string)
	onExtDesktop func()
	onQEMUKeys   func()

	used encodingCounts // rectangles per encoding the server chose

	storm fb.StormGuard // refuses a server resizing without end
}

// encodingCounts counts the rectangles a server sent per encoding: which
// encodings a session runs on is known only from what arrives (the client
// offers a list; the server picks per rectangle).
type encodingCounts struct {
	mu sync.Mutex
	n  map[int32]uint64
}

func (e *encodingCounts) add(enc int32) {
	e.mu.Lock()
	if e.n == nil {
		e.n = map[int32]uint64{}
	}
	e.n[enc]++
	e.mu.Unlock()
}

// snapshot names each encoding seen with its count.
func (e *encodingCounts) snapshot() map[string]uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]uint64, len(e.n))
	for enc, n := range e.n {
		out[EncodingName(enc)] = n
	}
	return out
}

// checkSize refuses a server-announced size beyond the buffer's limit
// (fb.DefaultMaxPixels without a buffer) before anything is allocated.
func checkSize(buf *fb.Buffer, w, h int) error {
	var err error
	if buf != nil {
		err = buf.CheckSize(w, h)
	} else if w > fb.MaxDim || h > fb.MaxDim || w*h > fb.DefaultMaxPixels {
		err = fmt.Errorf("%w: %dx%d is over the limit of %d pixels", fb.ErrTooLarge, w, h, fb.DefaultMaxPixels)
	}
	if err != nil {
		return &ProtocolError{Msg: "the server announced a framebuffer beyond the size limit", Err: err}
	}
	return nil
}

// readUpdate reads a FramebufferUpdate after its message-type byte.
func (d *decoder) readUpdate(r *reader) error {
	r.u8() // padding
	n := int(r.u16())
	for i := 0; i < n && r.err == nil; i++ {
		x, y := int(r.u16()), int(r.u16())
		w, h := int(r.u16()), int(r.u16())
		enc := int32(r.u32())
		if r.err != nil {
			break
		}
		last, err := d.rect(r, x, y, w, h, enc)
		if err != nil {
			return err
		}
		d.used.add(enc)
		if last {
			break
		}
	}
	return r.err
}

// rect decodes one rectangle; last reports a LastRect marker.
func (d *decoder) rect(r *reader, x, y, w, h int, enc int32) (last bool, err error) {
	switch enc {
	case EncLastRect:
		return true, nil
	case EncDesktopSize:
		return false, d.resize(w, h)
	case EncExtendedDesktopSize:
		return false, d.extDesktopSize(r, x, y, w, h)
	case EncCursor:
		return false, d.cursor(r, x, y, w, h)
	case EncQEMUExtendedKey, EncQEMUPointerMotion:
		if enc == EncQEMUExtendedKey && d.onQEMUKeys != nil {
			d.onQEMUKeys()
		}
		return false, nil
	case EncQEMULEDState:
		v := r.u8()
		if r.err == nil && d.onLEDs != nil {
			d.onLEDs(LEDs{Scroll: v&1 != 0, Num: v&2 != 0, Caps: v&4 != 0})
		}
		return false, r.err
	case EncVMwareLEDState:
		v := r.u32()
		if r.err == nil && d.onLEDs != nil {
			d.onLEDs(LEDs{Scroll: v&1 != 0, Num: v&2 != 0, Caps: v&4 != 0})
		}
		return false, r.err
	case EncDesktopName:
		n := r.u32()
		if n > maxNameLen {
			return false, protoErr("desktop name of %d bytes", n)
		}
		name := string(r.bytes(int(n)))
		if r.err == nil && d.onName != nil {
			d.onName(name)
		}
		return false, r.err
	}
	if x+w > d.s.w || y+h > d.s.h {
		return false, protoErr("%s rectangle %dx%d+%d+%d outside the %dx%d framebuffer",
			EncodingName(enc), w, h, x, y, d.s.w, d.s.h)
	}
	switch enc {
	case EncRaw:
		err = d.raw(r, x, y, w, h)
	case EncCopyRect:
		err = d.copyRect(r, x, y, w, h)
	case EncRRE:
		err = d.rre(r, x, y, w, h)
	case EncHextile:
		err = d.hextile(r, x, y, w, h)
	case EncZlib:
		err = d.zlibRect(r, x, y, w, h)
	case EncTight:
		d.filled = false
		err = d.tightRect(r, x, y, w, h)
	case EncZRLE:
		err = d.zrleRect(r, x, y, w, h)
	default:
		return false, protoErr("rectangle in encoding %d, which was not asked for", enc)
	}
	if err == nil {
		err = r.err
	}
	switch {
	case err != nil || w <= 0 || h <= 0:
	case enc == EncTight && d.filled:
		d.fills = append(d.fills, fb.Fill{R: image.Rect(x, y, x+w, y+h), C: d.fill})
	default:
		d.damage = append(d.damage, image.Rect(x, y, x+w, y+h))
	}
	return false, err
}

func (d *decoder) resize(w, h int) error {
	if err := checkSize(d.limit, w, h); err != nil {
		return err
	}
	// Checked before anything is allocated or cleared: the resize that
	// makes the storm costs nothing.
	if err := d.storm.Resize(time.Now()); err != nil {
		return &ProtocolError{Msg: "desktop size", Err: err}
	}
	d.s.resize(w, h)
	d.damage, d.fills = d.damage[:0], d.fills[:0]
	if d.onResize != nil {
		d.onResize(w, h)
	}
	return nil
}

func (d *decoder) extDesktopSize(r *reader, reason, status, w, h int) error {
	n := int(r.u8())
	r.bytes(3)
	r.skip(16 * n)
	if r.err != nil {
		return r.err
	}
	if d.onExtDesktop != nil {
		d.onExtDesktop()
	}
	// A non-zero status answers a refused request of ours: nothing changed.
	if status != 0 || (w == d.s.w && h == d.s.h) {
		return nil
	}
	return d.resize(w, h)
}

func (d *decoder) cursor(r *reader, hx, hy, w, h int) error {
	if w > maxCursorSide || h > maxCursorSide {
		return protoErr("cursor of %dx%d pixels", w, h)
	}
	pix := r.bytes(w * h * 4)
	if r.err != nil {
		return r.err
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	copy(img.Pix, pix)
	stride := (w + 7) / 8
	mask := r.bytes(stride * h)
	if r.err != nil {
		return r.err
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if mask[y*stride+x/8]&(0x80>>(x%8)) != 0 {
				img.Pix[(y*w+x)*4+3] = 0xff
			} else {
				clear(img.Pix[(y*w+x)*4 : (y*w+x)*4+4])
			}
		}
	}
	c := Cursor{Hotspot: image.Pt(hx, hy)}
	if w > 0 && h > 0 {
		c.Image = img
	}
	if d.onCursor != nil {
		d.onCursor(c)
	}
	return nil
}
