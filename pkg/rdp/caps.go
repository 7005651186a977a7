package rdp

// Capability sets (MS-RDPBCGR 2.2.7). We advertise what a bitmap-only
// client needs: fast-path output, 32 bpp bitmaps, no drawing orders, no
// caches worth using, large pointers, scancode/Unicode/fast-path input.

const (
	capGeneral       = 0x0001
	capBitmap        = 0x0002
	capOrder         = 0x0003
	capBitmapCache   = 0x0004
	capControl       = 0x0005
	capActivation    = 0x0007
	capPointer       = 0x0008
	capShare         = 0x0009
	capColorCache    = 0x000A
	capSound         = 0x000C
	capInput         = 0x000D
	capFont          = 0x000E
	capBrush         = 0x000F
	capGlyphCache    = 0x0010
	capOffscreen     = 0x0011
	capVirtChannel   = 0x0014
	capMultiFragment = 0x001A
	capLargePointer  = 0x001B
)

// General capability extra flags.
const (
	fastPathOutputSupported = 0x0001
	longCredentialsOK       = 0x0004
	encSaltedChecksum       = 0x0010
	noBitmapCompressionHdr  = 0x0400
)

// Input capability flags.
const (
	inputFlagScancodes      = 0x0001
	inputFlagMouseX         = 0x0004
	inputFlagFastPath       = 0x0008
	inputFlagUnicode        = 0x0010
	inputFlagFastPath2      = 0x0020
	inputFlagMouseHWheel    = 0x0100
	largePointerFlag96x96   = 0x0001
	largePointerFlag384x384 = 0x0002
)

// maxRequestSize bounds a reassembled fast-path update; the server must not
// send a fragmented update larger than what we advertise.
const maxRequestSize = 8 << 20

// maxDesktopSide bounds a server-forced desktop size: RDP sessions reach
// 8192x8192 at most, and the framebuffer (4 bytes a pixel) must stay bounded.
const maxDesktopSide = 8192

// pointerCacheSize is how many cursor shapes the server may ask us to keep.
const pointerCacheSize = 32

// serverCaps is what we keep from the server's Demand Active.
type serverCaps struct {
	Width, Height    int
	BPP              int
	FastPathOutput   bool
	InputFlags       uint16
	MultiFragment    uint32
	LargePointer     bool
	PointerCacheSize int
}

// parseCapabilities walks a capability set list, keeping what we use.
func parseCapabilities(b []byte, n int) (*serverCaps, error) {
	const where = "capability sets"
	sc := &serverCaps{}
	r := newReader(where, b)
	for i := 0; i < n && r.left() > 0; i++ {
		typ := r.u16()
		l := int(r.u16())
		if r.err != nil {
			return nil, r.err
		}
		if l < 4 {
			return nil, protoErr(where, "capability 0x%04X has length %d", typ, l)
		}
		body := r.bytes(l - 4)
		if r.err != nil {
			return nil, r.err
		}
		cr := newReader("capability set", body)
		switch typ {
		case capGeneral:
			cr.skip(10)
			extra := cr.u16()
			if cr.err == nil {
				sc.FastPathOutput = extra&fastPathOutputSupported != 0
			}
		case capBitmap:
			sc.BPP = int(cr.u16())
			cr.skip(6)
			sc.Width = int(cr.u16())
			sc.Height = int(cr.u16())
		case capInput:
			sc.InputFlags = cr.u16()
		case capMultiFragment:
			sc.MultiFragment = cr.u32()
		case capLargePointer:
			sc.LargePointer = cr.u16()&(largePointerFlag96x96|largePointerFlag384x384) != 0
		case capPointer:
			cr.u16()
			sc.PointerCacheSize = int(cr.u16())
		}
		// A short capability body is tolerated: servers add fields over
		// versions, and we read only leading ones.
	}
	if sc.Width <= 0 || sc.Height <= 0 || sc.Width > maxDesktopSide || sc.Height > maxDesktopSide {
		return nil, protoErr(where, "bitmap capability gives desktop size %dx%d", sc.Width, sc.Height)
	}
	return sc, nil
}

func capHeader(w *writer, typ uint16) int {
	at := w.len()
	w.u16(typ)
	w.u16(0)
	return at
}

func capEnd(w *writer, at int) { w.putU16(at+2, uint16(w.len()-at)) }

// clientCapabilities builds our capability sets for Confirm Active.
func clientCapabilities(width, height, bpp int) (sets []byte, count int) {
	var w writer
	add := func(typ uint16, body func()) {
		at := capHeader(&w, typ)
		body()
		capEnd(&w, at)
		count++
	}
	add(capGeneral, func() {
		w.u16(1)      // OS major: Windows
		w.u16(3)      // OS minor: NT
		w.u16(0x0200) // protocol version
		w.u16(0)
		w.u16(0) // compression types
		w.u16(fastPathOutputSupported | longCredentialsOK | encSaltedChecksum | noBitmapCompressionHdr)
		w.u16(0) // update capability
		w.u16(0) // remote unshare
		w.u16(0) // compression level
		w.u8(1)  // refresh rect supported
		w.u8(1)  // suppress output supported
	})
	add(capBitmap, func() {
		w.u16(uint16(bpp))
		w.u16(1)
		w.u16(1)
		w.u16(1)
		w.u16(uint16(width))
		w.u16(uint16(height))
		w.u16(0)
		w.u16(1) // desktop resize
		w.u16(1) // bitmap compression
		w.u8(0)  // high colour flags
		w.u8(0x08)
		w.u16(1) // multiple rectangles
		w.u16(0)
	})
	add(capOrder, func() {
		w.zeros(16) // terminal descriptor
		w.u32(0)
		w.u16(1)  // desktop save X granularity
		w.u16(20) // Y granularity
		w.u16(0)
		w.u16(1) // maximum order level
		w.u16(0) // number of fonts
		w.u16(0x0002 | 0x0008)
		w.zeros(32) // orderSupport: no drawing orders at all
		w.u16(0)    // text flags
		w.u16(0)    // orderSupportExFlags
		w.u32(0)
		w.u32(0) // desktop save size
		w.u16(0)
		w.u16(0)
		w.u16(0) // text ANSI code page
		w.u16(0)
	})
	add(capBitmapCache, func() { w.zeros(24 + 12) })
	add(capControl, func() {
		w.u16(0)
		w.u16(0)
		w.u16(2)
		w.u16(2)
	})
	add(capActivation, func() { w.zeros(8) })
	add(capPointer, func() {
		w.u16(1) // colour pointers
		w.u16(pointerCacheSize)
		w.u16(pointerCacheSize)
	})
	add(capShare, func() { w.zeros(4) })
	add(capColorCache, func() {
		w.u16(6)
		w.u16(0)
	})
	add(capSound, func() { w.zeros(4) })
	add(capInput, func() {
		w.u16(inputFlagScancodes | inputFlagMouseX | inputFlagFastPath | inputFlagUnicode | inputFlagFastPath2 | inputFlagMouseHWheel)
		w.u16(0)
		w.u32(0x409)
		w.u32(4)
		w.u32(0)
		w.u32(12)
		w.zeros(64)
	})
	add(capFont, func() {
		w.u16(0x0001) // FONTSUPPORT_FONTLIST
		w.u16(0)
	})
	add(capBrush, func() { w.u32(0) })
	add(capGlyphCache, func() { w.zeros(40 + 4 + 4) })
	add(capOffscreen, func() { w.zeros(8) })
	add(capVirtChannel, func() {
		w.u32(0)
		w.u32(1600)
	})
	add(capMultiFragment, func() { w.u32(maxRequestSize) })
	add(capLargePointer, func() { w.u16(largePointerFlag96x96) })
	return w.b, count
}
