package rdp

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestParseDemandActive(t *testing.T) {
	caps, n := serverCapSets(1920, 1080, 16, inputFlagFastPath|inputFlagMouseHWheel)
	var b writer
	b.u32(0x1234)
	b.u16(4)
	b.u16(uint16(len(caps) + 4))
	b.bytes([]byte("RDP\x00"))
	b.u16(uint16(n))
	b.u16(0)
	b.bytes(caps)
	da, err := parseDemandActive(b.b)
	if err != nil {
		t.Fatal(err)
	}
	if da.ShareID != 0x1234 || da.Caps.Width != 1920 || da.Caps.Height != 1080 || da.Caps.BPP != 16 ||
		!da.Caps.FastPathOutput || da.Caps.InputFlags != inputFlagFastPath|inputFlagMouseHWheel {
		t.Fatalf("%+v %+v", da, da.Caps)
	}
	bad := map[string][]byte{
		"caps length past end": func() []byte { x := bytes.Clone(b.b); binary.LittleEndian.PutUint16(x[6:], 0xFFFF); return x }(),
		"source past end":      func() []byte { x := bytes.Clone(b.b); binary.LittleEndian.PutUint16(x[4:], 0xFFFF); return x }(),
		"capability length 2":  func() []byte { x := bytes.Clone(b.b); binary.LittleEndian.PutUint16(x[18:], 2); return x }(),
		"no bitmap capability": func() []byte { x := bytes.Clone(b.b); binary.LittleEndian.PutUint16(x[12:], 1); return x }(),
		"empty":                nil,
	}
	for name, in := range bad {
		if _, err := parseDemandActive(in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Our own capability sets are well formed: each length covers its body,
// and they parse back with our size and colour depth.
func TestClientCapabilities(t *testing.T) {
	sets, n := clientCapabilities(1280, 800, 32)
	sc, err := parseCapabilities(sets, n)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Width != 1280 || sc.Height != 800 || sc.BPP != 32 || sc.MultiFragment != maxRequestSize || !sc.LargePointer {
		t.Fatalf("%+v", sc)
	}
	// The order capability must advertise no drawing orders at all.
	r := newReader("", sets)
	for r.left() > 0 {
		typ, l := r.u16(), int(r.u16())
		body := r.bytes(l - 4)
		if typ == capOrder {
			if len(body) != 84 || !bytes.Equal(body[32:64], make([]byte, 32)) {
				t.Fatalf("order capability %x", body)
			}
		}
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	ca := confirmActive(0x103EA, 1007, 1280, 800, 32)
	if int(binary.LittleEndian.Uint16(ca)) != len(ca) {
		t.Fatal("confirm active length")
	}
}

func FuzzCapabilities(f *testing.F) {
	caps, n := serverCapSets(800, 600, 32, 0x3F)
	var b writer
	b.u32(1)
	b.u16(0)
	b.u16(uint16(len(caps) + 4))
	b.u16(uint16(n))
	b.u16(0)
	b.bytes(caps)
	f.Add(b.b)
	own, m := clientCapabilities(1024, 768, 16)
	f.Add(append([]byte{1, 0, 0, 0, 0, 0, byte(len(own) + 4), byte((len(own) + 4) >> 8), byte(m), 0, 0, 0}, own...))
	f.Fuzz(func(t *testing.T, b []byte) {
		da, err := parseDemandActive(b)
		if err == nil && (da.Caps.Width <= 0 || da.Caps.Width > maxDesktopSide || da.Caps.Height <= 0 || da.Caps.Height > maxDesktopSide) {
			t.Fatalf("accepted size %dx%d", da.Caps.Width, da.Caps.Height)
		}
	})
}

func TestInputEncoding(t *testing.T) {
	ev := []inputEvent{
		scancodeEvent(0xE04D, true), // Right arrow, extended
		scancodeEvent(0x1E, false),  // 'a' released
		mouseEvent(PtrFlagsMove, 300, 70000),
		{kind: fpInputUnicode, code: 0x263A},
		{kind: fpInputSync, flags: SyncCapsLock},
	}
	got := fastPathInputPDU(ev)
	want := []byte{5 << 2, 17,
		fpInputScancode<<5 | kbdFlagsExtended, 0x4D,
		fpInputScancode<<5 | kbdFlagsRelease, 0x1E,
		fpInputMouse << 5, 0x00, 0x08, 0x2C, 0x01, 0xFF, 0xFF,
		fpInputUnicode << 5, 0x3A, 0x26,
		fpInputSync<<5 | SyncCapsLock}
	if !bytes.Equal(got, want) {
		t.Fatalf("fast-path input\n got %x\nwant %x", got, want)
	}
	// Many events: count moves out of the header, length takes two bytes.
	many := make([]inputEvent, 40)
	for i := range many {
		many[i] = mouseEvent(PtrFlagsMove, i, i)
	}
	p := fastPathInputPDU(many)
	if p[0] != 0 || p[1]&0x80 == 0 || int(p[1]&0x7F)<<8|int(p[2]) != len(p) || p[3] != 40 {
		t.Fatalf("long header %x", p[:4])
	}
	// Slow path carries the same events.
	s := slowPathInputBody(ev)
	if binary.LittleEndian.Uint16(s) != 5 || len(s) != 4+5*12 {
		t.Fatalf("slow-path input of %d bytes", len(s))
	}
	if f := binary.LittleEndian.Uint16(s[4+4+2:]); f != 0x0100 {
		t.Errorf("extended key flags %x", f)
	}
}

func TestWheelFlags(t *testing.T) {
	for _, c := range []struct {
		kind uint16
		pos  bool
		want uint16
	}{
		{PtrFlagsWheel, true, 0x0278},
		{PtrFlagsWheel, false, 0x0388},
		{PtrFlagsHWheel, true, 0x0478},
		{PtrFlagsHWheel, false, 0x0588},
	} {
		if got := wheelFlags(c.kind, c.pos); got != c.want {
			t.Errorf("wheelFlags(%x, %v) = %x, want %x", c.kind, c.pos, got, c.want)
		}
	}
}

func FuzzPointer(f *testing.F) {
	f.Add([]byte{ptrMsgColor, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 2, 0, 2, 0, 12, 0})
	f.Add([]byte{ptrMsgLarge, 0, 0, 0, 32, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 4, 0, 0, 0, 4, 0, 0, 0})
	f.Add([]byte{ptrMsgCached, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var ps pointerState
		ps.slowPath(b)
		if ps.current != nil && ps.current.Image != nil {
			if r := ps.current.Image.Rect; r.Dx() > maxLargePointerSide || r.Dy() > maxLargePointerSide {
				t.Fatalf("pointer of %v", r)
			}
		}
	})
}
