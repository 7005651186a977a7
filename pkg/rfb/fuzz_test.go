package rfb

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// Fuzz targets: every decoder is a function of a byte stream and its own
// state. Input layout: x, y, w, h (one byte each, taken modulo the 40x30
// surface) then the encoded data; the same data is decoded as up to three
// rectangles in a row so stream state (zlib dictionaries) is exercised.

func fuzzRect(f *testing.F, enc int32, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		d := newDecoder(40, 30)
		d.onCursor = func(Cursor) {}
		x, y := int(data[0])%40, int(data[1])%30
		w, h := int(data[2])%(41-x), int(data[3])%(31-y)
		r := newReader(bytes.NewReader(data[4:]))
		for i := 0; i < 3 && r.err == nil; i++ {
			if _, err := d.rect(r, x, y, w, h, enc); err != nil {
				return
			}
		}
	})
}

func hdr(x, y, w, h int) []byte { return []byte{byte(x), byte(y), byte(w), byte(h)} }

func FuzzRaw(f *testing.F) {
	fuzzRect(f, EncRaw, cat(hdr(0, 0, 1, 1), px(1, 2, 3)))
}

func FuzzCopyRect(f *testing.F) {
	fuzzRect(f, EncCopyRect, cat(hdr(1, 1, 4, 4), []byte{0, 0, 0, 0}), cat(hdr(0, 0, 40, 30), []byte{0, 1, 0, 1}))
}

func FuzzRRE(f *testing.F) {
	fuzzRect(f, EncRRE, cat(hdr(0, 0, 8, 8), u32(1), px(0, 0, 255), px(9, 9, 9), []byte{0, 1, 0, 1, 0, 2, 0, 2}))
}

func FuzzHextile(f *testing.F) {
	fuzzRect(f, EncHextile,
		cat(hdr(0, 0, 20, 16), []byte{hexBackground | hexForeground | hexAnySubrects}, px(255, 0, 0), px(0, 255, 0), []byte{1, 0x12, 0x12}, []byte{hexRaw}),
		cat(hdr(0, 0, 3, 3), []byte{hexAnySubrects | hexSubrectsColoured, 2}, px(1, 1, 1), []byte{0, 0}, px(2, 2, 2), []byte{0x11, 0x11}))
}

func FuzzZlib(f *testing.F) {
	var z zenc
	c := z.chunk(bytes.Repeat(px(1, 2, 3), 16))
	fuzzRect(f, EncZlib, cat(hdr(0, 0, 16, 1), u32(len(c)), c))
}

func FuzzTight(f *testing.F) {
	var z zenc
	c := z.chunk(bytes.Repeat([]byte{40, 50, 60}, 32))
	var z2 zenc
	c2 := z2.chunk([]byte{0xA0, 0x00, 0x50, 0x00, 0xff, 0xff, 0, 0, 0, 0, 0, 0})
	fuzzRect(f, EncTight,
		cat(hdr(0, 0, 16, 8), []byte{tightFill << 4, 1, 2, 3}),
		cat(hdr(0, 2, 16, 2), []byte{0x10}, compact(len(c)), c),
		cat(hdr(0, 0, 16, 6), []byte{0x60, tightFilterPl, 1, 255, 0, 0, 0, 0, 255}, compact(len(c2)), c2),
		cat(hdr(0, 0, 4, 1), []byte{0x40, tightFilterGr}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
		cat(hdr(0, 0, 2, 2), []byte{tightJPEG << 4, 4, 0xff, 0xd8, 0xff, 0xd9}))
}

func FuzzZRLE(f *testing.F) {
	var z zenc
	t1 := cat([]byte{130}, px(255, 0, 0)[:3], px(0, 255, 0)[:3], []byte{0x80, 9, 1, 0x80}, runBytes(64*4-11))
	c := z.chunk(t1)
	var z2 zenc
	c2 := z2.chunk(cat([]byte{2}, px(0, 0, 255)[:3], px(255, 255, 255)[:3], []byte{0x80, 0x40, 0x20, 0x10}))
	fuzzRect(f, EncZRLE, cat(hdr(0, 0, 40, 4), u32(len(c)), c), cat(hdr(0, 0, 6, 4), u32(len(c2)), c2))
}

func FuzzCursor(f *testing.F) {
	fuzzRect(f, EncCursor, cat(hdr(1, 0, 2, 2), px(255, 0, 0), px(0, 255, 0), px(0, 0, 255), px(1, 1, 1), []byte{0x80, 0x40}))
}

func FuzzUpdate(f *testing.F) {
	f.Add(update(rectHeader(0, 0, 1, 1, EncRaw), px(1, 2, 3), rectHeader(0, 0, 10, 10, EncDesktopSize),
		append(rectHeader(0, 0, 12, 12, EncExtendedDesktopSize), 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 12, 0, 12, 0, 0, 0, 0),
		append(rectHeader(0, 0, 0, 0, EncQEMULEDState), 4), append(rectHeader(0, 0, 0, 0, EncDesktopName), 0, 0, 0, 1, 'x'),
		rectHeader(0, 0, 0, 0, EncLastRect))[1:])
	f.Fuzz(func(t *testing.T, data []byte) {
		d := newDecoder(40, 30)
		d.readUpdate(newReader(bytes.NewReader(data)))
	})
}

func FuzzExtClipboard(f *testing.F) {
	f.Add(provideMessage("Γειά σου\n世界"))
	f.Add(cat(u32(clipCaps|clipText|clipNotify), u32(1234)))
	f.Add(u32(clipNotify | clipText))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 || len(data) > MaxCutText {
			return
		}
		parseExtClipboard(data)
	})
}

// scriptConn is a net.Conn whose reads come from a fixed server stream and
// whose writes are dropped.
type scriptConn struct{ r io.Reader }

func (c *scriptConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *scriptConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *scriptConn) Close() error                     { return nil }
func (c *scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzHandshake feeds server-side handshake streams (version, security
// lists, VNC auth, VeNCrypt, ARD, results, ServerInit) to the client. The
// first byte picks the credentials the client holds.
func FuzzHandshake(f *testing.F) {
	init := cat([]byte{0, 40, 0, 30}, make([]byte, 16), u32(4), []byte("test"))
	f.Add(cat([]byte{0}, []byte("RFB 003.008\n"), []byte{1, 1}, u32(0), init))
	f.Add(cat([]byte{1}, []byte("RFB 003.008\n"), []byte{1, 2}, make([]byte, 16), u32(1), u32(6), []byte("denied")))
	f.Add(cat([]byte{1}, []byte("RFB 003.003\n"), u32(2), make([]byte, 16), u32(0), init))
	f.Add(cat([]byte{2}, []byte("RFB 003.008\n"), []byte{1, 19, 0, 2, 0, 2}, u32(vcX509Vnc), u32(vcTLSVnc), []byte{1, 0x16, 3, 1}))
	f.Add(cat([]byte{2}, []byte("RFB 003.889\n"), []byte{1, 30, 0, 2, 0, 1, 23, 5}, u32(0), init))
	f.Add(cat([]byte{0}, []byte("RFB 003.007\n"), []byte{0}, u32(5), []byte("go away")))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		cfg := &Config{}
		switch data[0] % 3 {
		case 1:
			cfg.Password = "secret12"
		case 2:
			cfg.Username, cfg.Password = "user", "secret12"
		}
		h := newHandshake(&scriptConn{r: bytes.NewReader(data[1:])}, cfg)
		h.run()
	})
}
