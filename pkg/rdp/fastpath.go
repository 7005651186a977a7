package rdp

// Fast-path output (MS-RDPBCGR 2.2.9.1.2) and input (2.2.8.1.2).

// Fast-path update codes.
const (
	fpUpdateOrders       = 0x0
	fpUpdateBitmap       = 0x1
	fpUpdatePalette      = 0x2
	fpUpdateSync         = 0x3
	fpUpdateSurfCmds     = 0x4
	fpUpdatePtrNull      = 0x5
	fpUpdatePtrDefault   = 0x6
	fpUpdatePtrPosition  = 0x8
	fpUpdateColorPointer = 0x9
	fpUpdateCachedPtr    = 0xA
	fpUpdatePointer      = 0xB
	fpUpdateLargePointer = 0xC
)

// Fragmentation values in the update header.
const (
	fragSingle = 0
	fragLast   = 1
	fragFirst  = 2
	fragNext   = 3
)

// fastPathUpdate is one complete (reassembled) fast-path update.
type fastPathUpdate struct {
	Code uint8
	Data []byte
}

// reassembler joins fragmented fast-path updates, bounded by the
// multifragment size we advertised.
type reassembler struct {
	buf    []byte
	code   uint8
	active bool
	limit  int
}

// parseFastPath splits a fast-path output PDU (header byte and body after
// the length) into updates and calls fn with each complete one.
func (ra *reassembler) parseFastPath(hdr byte, body []byte, fn func(fastPathUpdate) error) error {
	const where = "fast-path output"
	if hdr>>6&0x2 != 0 {
		return protoErr(where, "encrypted fast-path output, but TLS needs no RDP encryption")
	}
	r := newReader(where, body)
	for r.left() > 0 {
		h := r.u8()
		code := h & 0xF
		frag := h >> 4 & 0x3
		if h>>6&0x3 == 0x2 { // FASTPATH_OUTPUT_COMPRESSION_USED
			if cf := r.u8(); cf&0x20 != 0 {
				return protoErr(where, "bulk-compressed update although we asked for none")
			}
		}
		n := int(r.u16())
		data := r.bytes(n)
		if r.err != nil {
			return r.err
		}
		limit := ra.limit
		if limit == 0 {
			limit = maxRequestSize
		}
		switch frag {
		case fragSingle:
			if ra.active {
				return protoErr(where, "unfragmented update inside a fragmented one")
			}
			if err := fn(fastPathUpdate{Code: code, Data: data}); err != nil {
				return err
			}
		case fragFirst:
			if ra.active {
				return protoErr(where, "a second first fragment")
			}
			ra.active, ra.code = true, code
			ra.buf = append(ra.buf[:0], data...)
		case fragNext, fragLast:
			if !ra.active || code != ra.code {
				return protoErr(where, "fragment without its first part")
			}
			if len(ra.buf)+len(data) > limit {
				return protoErr(where, "fragmented update over the %d-byte limit we advertised", limit)
			}
			ra.buf = append(ra.buf, data...)
			if frag == fragLast {
				ra.active = false
				if err := fn(fastPathUpdate{Code: code, Data: ra.buf}); err != nil {
					return err
				}
				if cap(ra.buf) > 1<<20 {
					ra.buf = nil // give a huge one-off buffer back
				}
			}
		}
	}
	return nil
}

// Fast-path input event codes and flags.
const (
	fpInputScancode = 0x0
	fpInputMouse    = 0x1
	fpInputMouseX   = 0x2
	fpInputSync     = 0x3
	fpInputUnicode  = 0x4

	kbdFlagsRelease  = 0x01
	kbdFlagsExtended = 0x02
)

// Pointer flags (MS-RDPBCGR 2.2.8.1.1.3.1.1.3).
const (
	PtrFlagsHWheel        = 0x0400
	PtrFlagsWheel         = 0x0200
	PtrFlagsWheelNegative = 0x0100
	PtrFlagsMove          = 0x0800
	PtrFlagsDown          = 0x8000
	PtrFlagsButton1       = 0x1000 // left
	PtrFlagsButton2       = 0x2000 // right
	PtrFlagsButton3       = 0x4000 // middle
	wheelStep             = 120
)

// Lock key states for synchronize events.
const (
	SyncScrollLock = 0x1
	SyncNumLock    = 0x2
	SyncCapsLock   = 0x4
	SyncKanaLock   = 0x8
)

// inputEvent is one input event, encoded for either path on send.
type inputEvent struct {
	kind   uint8 // fpInput*
	flags  uint8 // fast-path event flags (release, extended) or sync flags
	code   uint16
	x, y   uint16
	ptrFlg uint16
}

func (e inputEvent) appendFastPath(b []byte) []byte {
	b = append(b, e.kind<<5|e.flags&0x1F)
	switch e.kind {
	case fpInputScancode:
		b = append(b, byte(e.code))
	case fpInputUnicode:
		b = append(b, byte(e.code), byte(e.code>>8))
	case fpInputMouse, fpInputMouseX:
		b = append(b, byte(e.ptrFlg), byte(e.ptrFlg>>8), byte(e.x), byte(e.x>>8), byte(e.y), byte(e.y>>8))
	}
	return b
}

// fastPathInputPDU frames events as one fast-path input PDU.
func fastPathInputPDU(events []inputEvent) []byte {
	var body []byte
	for _, e := range events {
		body = e.appendFastPath(body)
	}
	n := len(events)
	hdr := byte(0)
	extra := []byte(nil)
	if n < 16 {
		hdr |= byte(n) << 2
	} else {
		extra = []byte{byte(n)}
	}
	total := 1 + len(extra) + len(body)
	var out []byte
	if total+1 <= 0x7F {
		out = append(out, hdr, byte(total+1))
	} else {
		total += 2
		out = append(out, hdr, byte(total>>8)|0x80, byte(total))
	}
	out = append(out, extra...)
	return append(out, body...)
}

// Slow-path input message types.
const (
	inputMsgSync     = 0x0000
	inputMsgScancode = 0x0004
	inputMsgUnicode  = 0x0005
	inputMsgMouse    = 0x8001
	inputMsgMouseX   = 0x8002
)

// slowPathInputBody encodes events as a TS_INPUT_PDU_DATA body, for servers
// without fast-path input.
func slowPathInputBody(events []inputEvent) []byte {
	var w writer
	w.u16(uint16(len(events)))
	w.u16(0)
	for _, e := range events {
		w.u32(0) // event time
		switch e.kind {
		case fpInputScancode:
			f := uint16(0)
			if e.flags&kbdFlagsRelease != 0 {
				f |= 0x8000
			}
			if e.flags&kbdFlagsExtended != 0 {
				f |= 0x0100
			}
			w.u16(inputMsgScancode)
			w.u16(f)
			w.u16(e.code)
			w.u16(0)
		case fpInputUnicode:
			f := uint16(0)
			if e.flags&kbdFlagsRelease != 0 {
				f |= 0x8000
			}
			w.u16(inputMsgUnicode)
			w.u16(f)
			w.u16(e.code)
			w.u16(0)
		case fpInputMouse, fpInputMouseX:
			if e.kind == fpInputMouse {
				w.u16(inputMsgMouse)
			} else {
				w.u16(inputMsgMouseX)
			}
			w.u16(e.ptrFlg)
			w.u16(e.x)
			w.u16(e.y)
		case fpInputSync:
			w.u16(inputMsgSync)
			w.u16(0)
			w.u32(uint32(e.flags))
		}
	}
	return w.b
}
