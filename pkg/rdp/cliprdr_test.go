package rdp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

func clipMsg(t *testing.T, cb *clipboard, msg []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, chunk := range channelChunks(msg) {
		m, err := cb.receive(chunk)
		if err != nil {
			t.Fatal(err)
		}
		if m != nil {
			r, err := cb.handle(m)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r...)
		}
	}
	return out
}

func TestClipboardExchange(t *testing.T) {
	cb := &clipboard{channel: 1004}
	var caps writer
	caps.u16(1)
	caps.u16(0)
	caps.u16(1)
	caps.u16(12)
	caps.u32(2)
	caps.u32(cbUseLongFormatNames)
	clipMsg(t, cb, cliprdrPDU(cbClipCaps, 0, caps.b))
	if !cb.longNames {
		t.Fatal("long format names not taken from the server's capabilities")
	}
	out := clipMsg(t, cb, cliprdrPDU(cbMonitorReady, 0, nil))
	if len(out) != 2 || binary.LittleEndian.Uint16(out[0]) != cbClipCaps || binary.LittleEndian.Uint16(out[1]) != cbFormatList {
		t.Fatalf("answer to monitor ready: %x", out)
	}
	// We offer text; the server asks for it.
	cb.local, cb.haveLocal = "héllo ✓", true
	out = clipMsg(t, cb, cliprdrPDU(cbFormatDataRequest, 0, []byte{cfUnicodeText, 0, 0, 0}))
	if len(out) != 1 || !bytes.Equal(out[0][8:], append(utf16le("héllo ✓"), 0, 0)) || binary.LittleEndian.Uint16(out[0][2:]) != cbResponseOK {
		t.Fatalf("data response %x", out)
	}
	out = clipMsg(t, cb, cliprdrPDU(cbFormatDataRequest, 0, []byte{cfText, 0, 0, 0}))
	if binary.LittleEndian.Uint16(out[0][2:]) != cbResponseFail {
		t.Fatal("a format we never offered was answered")
	}
	// The remote side copies: we acknowledge and fetch the text.
	var fl writer
	fl.u32(0xC004)
	fl.bytes(append(utf16le("HTML Format"), 0, 0))
	fl.u32(cfUnicodeText)
	fl.u16(0)
	out = clipMsg(t, cb, cliprdrPDU(cbFormatList, 0, fl.b))
	if len(out) != 2 || binary.LittleEndian.Uint16(out[1]) != cbFormatDataRequest || binary.LittleEndian.Uint32(out[1][8:]) != cfUnicodeText {
		t.Fatalf("answer to a format list: %x", out)
	}
	long := bytes.Repeat([]byte("x"), 5000) // spans several channel chunks
	clipMsg(t, cb, cliprdrPDU(cbFormatDataResponse, cbResponseOK, append(utf16le(string(long)), 0, 0)))
	if cb.remote != string(long) || !cb.haveRem || cb.remoteSeq != 1 {
		t.Fatalf("remote clipboard %d bytes, seq %d", len(cb.remote), cb.remoteSeq)
	}
}

func TestClipboardBounds(t *testing.T) {
	cb := &clipboard{}
	var pe *ProtocolError
	huge := []byte{0xFF, 0xFF, 0xFF, 0x7F, channelFlagFirst, 0, 0, 0}
	if _, err := cb.receive(huge); !errors.As(err, &pe) {
		t.Errorf("2 GiB message: %v", err)
	}
	over := []byte{4, 0, 0, 0, channelFlagFirst, 0, 0, 0, 1, 2, 3, 4, 5}
	if _, err := cb.receive(over); !errors.As(err, &pe) {
		t.Errorf("chunk beyond its announced length: %v", err)
	}
	many := make([]byte, 0, 8*(maxClipboardFormats+1))
	for range maxClipboardFormats + 1 {
		many = append(many, 1, 0, 0, 0, 0, 0)
	}
	cb.longNames = true
	if _, err := cb.handle(cliprdrPDU(cbFormatList, 0, many)); !errors.As(err, &pe) {
		t.Errorf("too many formats: %v", err)
	}
	if chunks := channelChunks(nil); len(chunks) != 1 || chunks[0][4]&(channelFlagFirst|channelFlagLast) != 3 {
		t.Errorf("empty message chunks %x", chunks)
	}
}

func FuzzClipboard(f *testing.F) {
	for _, m := range [][]byte{
		cliprdrPDU(cbMonitorReady, 0, nil),
		cliprdrPDU(cbFormatList, 0, []byte{13, 0, 0, 0, 0, 0}),
		cliprdrPDU(cbFormatDataResponse, cbResponseOK, []byte{'h', 0, 'i', 0, 0, 0}),
		cliprdrPDU(cbClipCaps, 0, []byte{1, 0, 0, 0, 1, 0, 12, 0, 2, 0, 0, 0, 2, 0, 0, 0}),
	} {
		f.Add(channelChunks(m)[0])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cb := &clipboard{channel: 1, pendingRq: cfUnicodeText}
		for range 2 {
			m, err := cb.receive(b)
			if err != nil {
				return
			}
			if m != nil {
				cb.handle(m)
			}
		}
		if cap(cb.in) > maxClipboardBytes {
			t.Fatal("reassembly over its bound")
		}
	})
}
