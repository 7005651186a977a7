package rdp

import (
	"bytes"
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/fb"
)

// rawRect is a 32 bpp uncompressed rectangle filled with one colour.
func rawRect(x, y, w, h int, r, g, b byte) []byte {
	var px writer
	for range w * h {
		px.bytes([]byte{b, g, r, 0})
	}
	var wr writer
	for _, v := range []int{x, y, x + w - 1, y + h - 1, w, h, 32, 0, len(px.b)} {
		wr.u16(uint16(v))
	}
	wr.bytes(px.b)
	return wr.b
}

func bitmapUpdateData(rects ...[]byte) []byte {
	var w writer
	w.u16(updateBitmap)
	w.u16(uint16(len(rects)))
	for _, r := range rects {
		w.bytes(r)
	}
	return w.b
}

func fpUpdate(code, frag uint8, data []byte) []byte {
	var w writer
	w.u8(code | frag<<4)
	w.u16(uint16(len(data)))
	w.bytes(data)
	return w.b
}

func fpFrame(updates ...[]byte) []byte {
	body := bytes.Join(updates, nil)
	n := len(body) + 3
	return append([]byte{0x00, byte(n>>8) | 0x80, byte(n)}, body...)
}

// slowFrame wraps share-level bytes in MCS and X.224 as sent on the I/O channel.
func slowFrame(data []byte) []byte {
	ind := mcsSendData(1002, 1003, data)
	ind[0] = mcsSendDataInd << 2
	return x224Data(ind)
}

func serverDataPDU(type2 uint8, body []byte) []byte {
	return slowFrame(shareDataPDU(0x103EA, 1002, type2, body))
}

func serverCapSets(w, h, bpp int, input uint16) ([]byte, int) {
	var wr writer
	at := capHeader(&wr, capGeneral)
	wr.u16(1)
	wr.u16(3)
	wr.u16(0x200)
	wr.u16(0)
	wr.u16(0)
	wr.u16(fastPathOutputSupported)
	wr.zeros(8)
	capEnd(&wr, at)
	at = capHeader(&wr, capBitmap)
	wr.u16(uint16(bpp))
	wr.u16(1)
	wr.u16(1)
	wr.u16(1)
	wr.u16(uint16(w))
	wr.u16(uint16(h))
	wr.zeros(12)
	capEnd(&wr, at)
	at = capHeader(&wr, capInput)
	wr.u16(input)
	wr.zeros(82)
	capEnd(&wr, at)
	return wr.b, 3
}

func demandActivePDU(w, h int) []byte {
	caps, n := serverCapSets(w, h, 32, inputFlagScancodes|inputFlagFastPath|inputFlagUnicode)
	var b writer
	b.u32(0x103EA)
	b.u16(4)
	b.u16(uint16(len(caps) + 4))
	b.bytes([]byte("RDP\x00"))
	b.u16(uint16(n))
	b.u16(0)
	b.bytes(caps)
	b.u32(0)
	return slowFrame(shareControlPDU(pduDemandActive, 1002, b.b))
}

func pixel(buf *fb.Buffer, x, y int) [3]byte {
	img, _ := buf.Snapshot(image.Rect(x, y, x+1, y+1))
	if img.Pix[3] != 0xff {
		panic("framebuffer pixel not opaque")
	}
	return [3]byte{img.Pix[0], img.Pix[1], img.Pix[2]}
}

func runStream(t *testing.T, stream []byte) (*Client, *fb.Buffer, error) {
	t.Helper()
	c, buf := testClient(stream)
	c.activated.Store(1)
	err := c.finalError(c.readLoop())
	return c, buf, err
}

func TestSessionStream(t *testing.T) {
	var s [][]byte
	// Fast-path bitmap, then the same update split in three fragments.
	s = append(s, fpFrame(fpUpdate(fpUpdateBitmap, fragSingle, bitmapUpdateData(rawRect(0, 0, 4, 2, 255, 0, 0)))))
	frag := bitmapUpdateData(rawRect(10, 10, 8, 8, 0, 255, 0), rawRect(62, 46, 4, 4, 0, 0, 255))
	s = append(s, fpFrame(fpUpdate(fpUpdateBitmap, fragFirst, frag[:10]), fpUpdate(fpUpdateBitmap, fragNext, frag[10:100])))
	s = append(s, fpFrame(fpUpdate(fpUpdateBitmap, fragLast, frag[100:])))
	// Slow-path bitmap, keyboard indicators, pointer position, error info.
	s = append(s, serverDataPDU(pdu2Update, bitmapUpdateData(rawRect(20, 20, 2, 2, 9, 8, 7))))
	s = append(s, serverDataPDU(pdu2KbdIndicators, []byte{0, 0, SyncCapsLock | SyncNumLock, 0}))
	s = append(s, serverDataPDU(pdu2Pointer, []byte{ptrMsgPosition, 0, 0, 0, 5, 0, 6, 0}))
	s = append(s, serverDataPDU(pdu2Pointer, []byte{ptrMsgSystem, 0, 0, 0, 0, 0, 0, 0}))
	s = append(s, serverDataPDU(pdu2PlaySound, []byte{0x20, 3, 0, 0, 100, 0, 0, 0}))
	s = append(s, serverDataPDU(pdu2SetErrorInfo, []byte{0x0C, 0, 0, 0}))
	c, buf, err := runStream(t, bytes.Join(s, nil))

	var de *DisconnectError
	if !errors.As(err, &de) || de.Info != 0x0C {
		t.Fatalf("end of stream: %v, want the server's logoff reason", err)
	}
	for _, p := range []struct {
		x, y int
		want [3]byte
	}{{0, 0, [3]byte{255, 0, 0}}, {3, 1, [3]byte{255, 0, 0}}, {10, 10, [3]byte{0, 255, 0}}, {17, 17, [3]byte{0, 255, 0}},
		{63, 47, [3]byte{0, 0, 255}}, {20, 21, [3]byte{9, 8, 7}}, {30, 30, [3]byte{0, 0, 0}}} {
		if got := pixel(buf, p.x, p.y); got != p.want {
			t.Errorf("pixel (%d,%d) = %v, want %v", p.x, p.y, got, p.want)
		}
	}
	if c.Bells() != 1 {
		t.Errorf("bells %d", c.Bells())
	}
	if leds, ok := c.LEDs(); !ok || leds != SyncCapsLock|SyncNumLock {
		t.Errorf("LEDs = %x %v", leds, ok)
	}
	if pos, ok := c.PointerPosition(); !ok || pos != image.Pt(5, 6) {
		t.Errorf("pointer position %v %v", pos, ok)
	}
	if cur, n := c.Cursor(); cur == nil || cur.System != "hidden" || n != 2 {
		t.Errorf("cursor %+v after %d updates", cur, n)
	}
}

func TestReactivationResizes(t *testing.T) {
	c, buf := testClient(bytes.Join([][]byte{
		slowFrame(shareControlPDU(pduDeactivateAll, 1002, []byte{0xEA, 0x03, 0x01, 0x00, 0x01, 0x00, 0x00})),
		demandActivePDU(32, 16),
		fpFrame(fpUpdate(fpUpdateBitmap, fragSingle, bitmapUpdateData(rawRect(0, 0, 32, 16, 1, 2, 3)))),
	}, nil))
	c.activated.Store(1)
	before := buf.Resizes()
	c.readLoop()
	if w, h := buf.Size(); w != 32 || h != 16 || buf.Resizes() != before+1 || buf.Coverage() != 1 {
		t.Fatalf("after reactivation: %dx%d, resizes %d→%d, coverage %v", w, h, before, buf.Resizes(), buf.Coverage())
	}
	if c.Activations() != 2 || !c.UnicodeInput() {
		t.Fatalf("activations %d, unicode %v", c.Activations(), c.UnicodeInput())
	}
}

// Hostile streams end the session with a ProtocolError and bounded memory.
func TestHostileStreams(t *testing.T) {
	huge := rawRect(0, 0, 1, 1, 0, 0, 0)
	huge[8], huge[9], huge[10], huge[11] = 0xFF, 0xFF, 0xFF, 0xFF // 65535x65535
	overflow := [][]byte{fpFrame(fpUpdate(fpUpdateBitmap, fragFirst, make([]byte, 30000)))}
	for range maxRequestSize / 30000 {
		overflow = append(overflow, fpFrame(fpUpdate(fpUpdateBitmap, fragNext, make([]byte, 30000))))
	}
	cases := map[string][]byte{
		"giant rectangle":         fpFrame(fpUpdate(fpUpdateBitmap, fragSingle, bitmapUpdateData(huge))),
		"fragments past the cap":  bytes.Join(overflow, nil),
		"fragment without first":  fpFrame(fpUpdate(fpUpdateBitmap, fragLast, []byte{1})),
		"update overruns frame":   fpFrame([]byte{fpUpdateBitmap, 0xFF, 0x00}),
		"encrypted fast-path":     {0x80, 3, 0},
		"compressed fast-path":    fpFrame([]byte{fpUpdateBitmap | 0x80, 0x20, 0, 0}),
		"bad bpp":                 fpFrame(fpUpdate(fpUpdateBitmap, fragSingle, func() []byte { r := rawRect(0, 0, 1, 1, 0, 0, 0); r[12] = 7; return bitmapUpdateData(r) }())),
		"short bitmap data":       fpFrame(fpUpdate(fpUpdateBitmap, fragSingle, bitmapUpdateData(rawRect(0, 0, 2, 2, 0, 0, 0)[:20]))),
		"palette of 1000":         fpFrame(fpUpdate(fpUpdatePalette, fragSingle, []byte{2, 0, 0, 0, 0xE8, 0x03, 0, 0})),
		"cached pointer missing":  fpFrame(fpUpdate(fpUpdateCachedPtr, fragSingle, []byte{3, 0})),
		"pointer cache overflow":  fpFrame(fpUpdate(fpUpdateColorPointer, fragSingle, []byte{0xFF, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0})),
		"pointer too large":       fpFrame(fpUpdate(fpUpdatePointer, fragSingle, []byte{32, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0x0F, 1, 0, 0, 0, 0, 0})),
		"share length lies":       slowFrame([]byte{0xFF, 0x00, 0x17, 0x00, 0xEA, 0x03}),
		"compressed data PDU":     slowFrame(func() []byte { b := shareDataPDU(1, 1002, pdu2Update, []byte{1, 0}); b[15] = 0x20; return b }()),
		"garbage first byte":      {0x01, 0x02},
		"demand active zero size": demandActivePDU(0, 0),
		"redirection":             slowFrame(shareControlPDU(pduServerRedir, 1002, []byte{0, 0})),
		"update of many screens":  fpFrame(fpUpdate(fpUpdateBitmap, fragSingle, bitmapUpdateData(rawRect(0, 0, 64, 48, 1, 1, 1), rawRect(0, 0, 64, 48, 1, 1, 1), rawRect(0, 0, 64, 48, 1, 1, 1), rawRect(0, 0, 64, 48, 1, 1, 1), rawRect(0, 0, 64, 48, 1, 1, 1), rawRect(0, 0, 64, 48, 1, 1, 1)))),
	}
	for name, stream := range cases {
		_, _, err := runStream(t, stream)
		var pe *ProtocolError
		var ue *UnsupportedError
		if !errors.As(err, &pe) && !errors.As(err, &ue) {
			t.Errorf("%s: %v (%T), want a ProtocolError", name, err, err)
		}
	}
}

func FuzzFastPath(f *testing.F) {
	f.Add(fpFrame(fpUpdate(fpUpdateBitmap, fragSingle, bitmapUpdateData(rawRect(0, 0, 4, 2, 255, 0, 0)))))
	f.Add(fpFrame(fpUpdate(fpUpdatePtrPosition, fragSingle, []byte{1, 0, 2, 0}), fpUpdate(fpUpdatePtrNull, fragSingle, nil)))
	f.Add(fpFrame(fpUpdate(fpUpdatePalette, fragSingle, append([]byte{2, 0, 0, 0, 2, 0, 0, 0}, make([]byte, 6)...))))
	f.Add(fpFrame(fpUpdate(fpUpdateBitmap, fragFirst, []byte{1, 0}), fpUpdate(fpUpdateBitmap, fragLast, []byte{0, 0})))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, _ := testClient(b)
		c.activated.Store(1)
		c.readLoop()
		if cap(c.ra.buf) > maxRequestSize+1<<16 {
			t.Fatalf("reassembly grew to %d", cap(c.ra.buf))
		}
	})
}

func FuzzSlowPath(f *testing.F) {
	f.Add(serverDataPDU(pdu2Update, bitmapUpdateData(rawRect(20, 20, 2, 2, 9, 8, 7))))
	f.Add(serverDataPDU(pdu2Pointer, []byte{ptrMsgPosition, 0, 0, 0, 5, 0, 6, 0}))
	f.Add(demandActivePDU(32, 16))
	f.Add(serverDataPDU(pdu2KbdIndicators, []byte{0, 0, 4, 0}))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, buf := testClient(b)
		c.activated.Store(1)
		c.readLoop()
		if w, h := buf.Size(); w > fb.MaxDim || h > fb.MaxDim {
			t.Fatalf("framebuffer %dx%d", w, h)
		}
	})
}

// FuzzChannelData feeds the share layer directly (after MCS), including
// licensing before activation.
func FuzzChannelData(f *testing.F) {
	f.Add(false, shareDataPDU(1, 1002, pdu2Update, bitmapUpdateData(rawRect(0, 0, 1, 1, 1, 1, 1))))
	f.Add(true, []byte{0x80, 0, 0, 0, licenseErrorAlert, 3, 16, 0, 7, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0})
	f.Add(true, []byte{0x80, 0, 0, 0, licenseRequest, 3, 0, 0})
	f.Fuzz(func(t *testing.T, licensing bool, b []byte) {
		c, _ := testClient(nil)
		if !licensing {
			c.activated.Store(1)
		}
		c.channelData(1003, b)
	})
}

// The server's reason (Set Error Info) survives the disconnect that
// follows it, and an X.224 disconnect request is a disconnect, not garbage.
func TestDisconnectReasons(t *testing.T) {
	ultimatum := x224Data([]byte{mcsDisconnectUlt<<2 | 1, 0x80})
	_, _, err := runStream(t, append(serverDataPDU(pdu2SetErrorInfo, []byte{0x05, 0, 0, 0}), ultimatum...))
	var de *DisconnectError
	if !errors.As(err, &de) || de.Info != 5 || !strings.Contains(de.Error(), "another connection") {
		t.Errorf("error info then ultimatum: %v", err)
	}
	_, _, err = runStream(t, ultimatum)
	if !errors.As(err, &de) || de.Info != 0 {
		t.Errorf("bare ultimatum: %v", err)
	}
	_, _, err = runStream(t, tpktFrame([]byte{6, x224DR, 0, 0, 0, 0, 0}))
	if !errors.As(err, &de) {
		t.Errorf("X.224 disconnect request: %v", err)
	}
}
