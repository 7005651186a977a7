package rfbserver

import (
	"bytes"
	"image"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// TestTightJPEGSubsamplingPerLevel: a viewer naming a quality level gets
// TigerVNC's chroma subsampling for it (4:2:0 at 0..2, 4:2:2 at 3..5,
// 4:4:4 from 6), read from the JPEG frame headers on the wire, and our
// RFB client (image/jpeg) decodes the pictures near the original.
func TestTightJPEGSubsamplingPerLevel(t *testing.T) {
	src := fb.New()
	src.Resize(256, 128)
	pix, stride, _, _ := src.BeginWrite()
	for y := 0; y < 128; y++ {
		for x := 0; x < 256; x++ {
			o := y*stride + x*4
			pix[o], pix[o+1], pix[o+2], pix[o+3] = byte(x), byte(y*2), byte((x+2*y)/4), 0xff
			if (x*13+y*7)%5 == 0 {
				pix[o] ^= 3
			}
		}
	}
	src.EndWrite(image.Rect(0, 0, 256, 128))
	addr := serve(t, Config{Buffer: src})
	for _, tc := range []struct {
		level   int
		factors byte // luma's horizontal and vertical sampling factors
		tol     int  // worst channel error allowed (measured: 21, 8, 5, 3)
	}{{0, 0x22, 32}, {3, 0x21, 16}, {6, 0x11, 10}, {9, 0x11, 6}} {
		wire := &tapLog{}
		c := dial(t, tap(t, addr, wire), &rfb.Config{Encodings: []int32{rfb.EncTight, rfb.EncTightQuality0 + int32(tc.level)}})
		waitClose(t, src, c.Framebuffer(), tc.tol)
		sofs := wire.frameHeaders()
		if len(sofs) == 0 {
			t.Fatalf("level %d: no JPEG on the wire (%v)", tc.level, c.Encodings())
		}
		for _, sof := range sofs {
			if sof.comps != 3 || sof.factors != [3]byte{tc.factors, 0x11, 0x11} {
				t.Errorf("level %d: a %dx%d JPEG with %d components sampled %x, want %x,11,11",
					tc.level, sof.w, sof.h, sof.comps, sof.factors, tc.factors)
			}
		}
		c.Close()
	}
}

// tapLog keeps the bytes a server sent through tap.
type tapLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *tapLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

type frameHeader struct {
	w, h, comps int
	factors     [3]byte
}

// frameHeaders finds the baseline JPEG frame headers (SOF0, 8-bit, 17
// bytes: three components) in what the server sent. Elsewhere, a JPEG's
// coded data has no 0xff without a 0 after it, and zlib output matching
// all of the header's fixed bytes by chance is not a concern at this size.
func (l *tapLog) frameHeaders() []frameHeader {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []frameHeader
	data := l.buf.Bytes()
	for {
		i := bytes.Index(data, []byte{0xff, 0xc0, 0, 17, 8})
		if i < 0 || i+19 > len(data) {
			return out
		}
		d := data[i+5:]
		out = append(out, frameHeader{
			h: int(d[0])<<8 | int(d[1]), w: int(d[2])<<8 | int(d[3]), comps: int(d[4]),
			factors: [3]byte{d[6], d[9], d[12]},
		})
		data = data[i+19:]
	}
}

// tap relays one connection to addr, logging what comes back.
func tap(t *testing.T, addr string, log *tapLog) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		conns = nil
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		down, err := ln.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			down.Close()
			return
		}
		mu.Lock()
		conns = append(conns, down, up)
		mu.Unlock()
		wg.Add(1)
		go func() { defer wg.Done(); io.Copy(up, down); up.Close() }()
		io.Copy(io.MultiWriter(down, log), up)
		down.Close()
	}()
	return ln.Addr().String()
}
