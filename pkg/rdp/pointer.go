package rdp

import (
	"image"

	"github.com/dvvhq/dvv/pkg/rdp/bitmap"
)

// Cursor is a pointer shape the server set.
type Cursor struct {
	Image      *image.RGBA // nil for the hidden pointer
	HotX, HotY int
	System     string // "default" or "hidden" for system pointers, "" for shapes
}

// Pointer message types (slow path) and fast-path update codes.
const (
	ptrMsgSystem   = 0x0001
	ptrMsgPosition = 0x0003
	ptrMsgColor    = 0x0006
	ptrMsgCached   = 0x0007
	ptrMsgPointer  = 0x0008
	ptrMsgLarge    = 0x0009
	sysPtrNull     = 0x00000000
	sysPtrDefault  = 0x00007F00

	maxPointerSide      = 96
	maxLargePointerSide = 384
)

// pointerState keeps the cursor cache and the current cursor.
type pointerState struct {
	cache   [pointerCacheSize]*Cursor
	current *Cursor
	x, y    int
	moved   bool
}

// colorPointer parses TS_COLORPOINTERATTRIBUTE (or the large variant) and
// stores it in the cache.
func (ps *pointerState) colorPointer(b []byte, xorBpp int, large bool) error {
	const where = "pointer update"
	r := newReader(where, b)
	idx := int(r.u16())
	hx, hy := int(r.u16()), int(r.u16())
	w, h := int(r.u16()), int(r.u16())
	var andLen, xorLen int
	if large {
		andLen, xorLen = int(r.u32()), int(r.u32())
	} else {
		andLen, xorLen = int(r.u16()), int(r.u16())
	}
	if r.err != nil {
		return r.err
	}
	limit := maxPointerSide
	if large {
		limit = maxLargePointerSide
	}
	if w > limit || h > limit {
		return protoErr(where, "pointer of %dx%d is over %dx%d", w, h, limit, limit)
	}
	if idx >= pointerCacheSize {
		return protoErr(where, "cache index %d outside our %d entries", idx, pointerCacheSize)
	}
	xor := r.bytes(xorLen)
	and := r.bytes(andLen)
	if r.err != nil {
		return r.err
	}
	c := &Cursor{HotX: hx, HotY: hy}
	if w > 0 && h > 0 {
		img, err := bitmap.DecodePointer(xorBpp, w, h, xor, and, nil)
		if err != nil {
			return protoErr(where, "%v", err)
		}
		c.Image = img
	}
	ps.cache[idx] = c
	ps.current = c
	return nil
}

func (ps *pointerState) cached(b []byte) error {
	r := newReader("cached pointer update", b)
	idx := int(r.u16())
	if r.err != nil {
		return r.err
	}
	if idx >= pointerCacheSize || ps.cache[idx] == nil {
		return protoErr("cached pointer update", "cache index %d is empty", idx)
	}
	ps.current = ps.cache[idx]
	return nil
}

func (ps *pointerState) system(kind uint32) {
	switch kind {
	case sysPtrNull:
		ps.current = &Cursor{System: "hidden"}
	default:
		ps.current = &Cursor{System: "default"}
	}
}

func (ps *pointerState) position(b []byte) error {
	r := newReader("pointer position update", b)
	x, y := int(r.u16()), int(r.u16())
	if r.err != nil {
		return r.err
	}
	ps.x, ps.y, ps.moved = x, y, true
	return nil
}

// slowPath handles a slow-path pointer PDU body (messageType included).
func (ps *pointerState) slowPath(b []byte) error {
	r := newReader("pointer PDU", b)
	typ := r.u16()
	r.u16()
	if r.err != nil {
		return r.err
	}
	body := r.rest()
	switch typ {
	case ptrMsgSystem:
		sr := newReader("system pointer", body)
		k := sr.u32()
		if sr.err != nil {
			return sr.err
		}
		ps.system(k)
	case ptrMsgPosition:
		return ps.position(body)
	case ptrMsgColor:
		return ps.colorPointer(body, 24, false)
	case ptrMsgCached:
		return ps.cached(body)
	case ptrMsgPointer, ptrMsgLarge:
		br := newReader("pointer PDU", body)
		bpp := int(br.u16())
		if br.err != nil {
			return br.err
		}
		return ps.colorPointer(body[2:], bpp, typ == ptrMsgLarge)
	}
	return nil
}
