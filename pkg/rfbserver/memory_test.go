package rfbserver

import (
	"context"
	"errors"
	"image"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// sessionBound is what docs/security.md states a session holds on a w×h
// desktop: 8 bytes per 64-pixel row segment, two row hashes per row for
// scroll detection, and the buffers of one rectangle (at most 64 rows of
// maxPieceWidth pixels, as RGBA, as ZRLE input and output), not counting
// the zlib stream's own state (under 1 MiB) and the 64 KiB write buffer.
func sessionBound(w, h int) int {
	return 8*h*((w+tile-1)/tile) + 16*h + 4*(tile*maxPieceWidth*4)
}

// TestSessionMemoryIsBounded serves full updates of an 8192x4096 mirror
// (128 MiB) in Raw and ZRLE: what a session keeps and what one update
// allocates stay within the bound, far below one frame.
func TestSessionMemoryIsBounded(t *testing.T) {
	const w, h = 8192, 4096
	buf := fb.New()
	buf.SetMaxPixels(w * h)
	if err := buf.Resize(w, h); err != nil {
		t.Fatal(err)
	}
	paint(buf, image.Rect(0, 0, w, h), 1)
	for _, encs := range [][]int32{{encRaw}, {encCopyRect, encZRLE}, {encTight, encCompress0 + 2}, {encTight, encQuality0 + 6}} {
		server, client := net.Pipe()
		go io.Copy(io.Discard, client)
		s := &session{cfg: Config{Buffer: buf, WriteTimeout: time.Minute}, conn: server, pf: defaultFormat, encodings: encs}
		s.tracker = buf.NewTracker()
		var before, after runtime.MemStats
		for i := 0; i < 2; i++ {
			s.want, s.full = true, true
			runtime.ReadMemStats(&before)
			if err := s.maybeUpdate(); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if i > 0 { // the first update sizes the buffers
				if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
					t.Errorf("encodings %v: a full update allocated %d KiB; want < 1 MiB", encs, got>>10)
				}
			}
		}
		if held, bound := s.enc.held(), sessionBound(w, h); held > bound {
			t.Errorf("encodings %v: a session holds %d KiB, over its stated bound of %d KiB", encs, held>>10, bound>>10)
		}
		t.Logf("encodings %v: a session holds %.1f MiB on %dx%d (bound %.1f MiB)", encs, float64(s.enc.held())/(1<<20), w, h, float64(sessionBound(w, h))/(1<<20))
		s.tracker.Close()
		server.Close()
		client.Close()
	}
}

// TestScrollIsCopyRect: a scroll reaches a viewer that takes CopyRect as
// one, found by comparing hashes of what the viewer has.
func TestScrollIsCopyRect(t *testing.T) {
	src := fb.New()
	src.Resize(640, 480)
	paint(src, image.Rect(0, 0, 640, 480), 1)
	addr := serve(t, Config{Buffer: src})
	c := dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncCopyRect, rfb.EncZRLE}})
	waitSame(t, src, c.Framebuffer(), "first frame")
	pix, stride, _, _ := src.BeginWrite()
	copy(pix[0:], pix[40*stride:480*stride])
	src.EndWrite(image.Rect(0, 0, 640, 480))
	paint(src, image.Rect(0, 440, 640, 480), 3)
	waitSame(t, src, c.Framebuffer(), "scroll")
	if n := c.Encodings()["CopyRect"]; n == 0 {
		t.Fatalf("the scroll was sent without CopyRect: %v", c.Encodings())
	}
}

// TestGateRefuses: a gate's error reaches the viewer as the reason.
func TestGateRefuses(t *testing.T) {
	src := fb.New()
	src.Resize(64, 64)
	addr := serve(t, Config{Buffer: src, Gate: func() error { return errors.New("blocked for 9 s more") }})
	_, err := rfb.Dial(context.Background(), addr, &rfb.Config{})
	if err == nil || !strings.Contains(err.Error(), "blocked for 9 s more") {
		t.Fatalf("want the gate's reason, got %v", err)
	}
}
