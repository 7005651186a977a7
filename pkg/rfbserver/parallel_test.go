package rfbserver

import (
	"bytes"
	"fmt"
	"image"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// paintPhoto paints r photo-like: smooth gradients that move with seed,
// each pixel nudged by a little noise, so every tile is photographic and
// JPEG keeps it close.
func paintPhoto(buf *fb.Buffer, r image.Rectangle, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	pix, stride, w, h := buf.BeginWrite()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			n := int(rng.Uint32() % 7)
			o := y*stride + x*4
			pix[o] = byte(x*200/w + n)
			pix[o+1] = byte(y*200/h + 6 - n)
			tri := (x + y + int(seed)*40) % 400 // a triangle wave: no edge
			pix[o+2] = byte(min(tri, 400-tri) + n)
			pix[o+3] = 0xff
		}
	}
	buf.EndWrite(r)
}

// withPhotoWorkers runs fn with windows of n rectangles.
func withPhotoWorkers(n int, fn func()) {
	old := photoWorkers.Swap(int64(n))
	defer photoWorkers.Store(old)
	fn()
}

// updateBytes is what one session writes for a full update of buf and
// then an incremental one after change, with noVNC's Tight settings.
func updateBytes(t *testing.T, buf *fb.Buffer, change func()) []byte {
	t.Helper()
	server, client := net.Pipe()
	var got bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&got, client); close(done) }()
	s := &session{cfg: Config{Buffer: buf, WriteTimeout: time.Minute}, conn: server, pf: defaultFormat,
		encodings: []int32{encCopyRect, encTight, encQuality0 + 6}}
	s.tracker = buf.NewTracker()
	defer s.tracker.Close()
	s.want, s.full = true, true
	if err := s.maybeUpdate(); err != nil {
		t.Fatal(err)
	}
	change()
	s.want = true
	if err := s.maybeUpdate(); err != nil {
		t.Fatal(err)
	}
	server.Close()
	<-done
	return got.Bytes()
}

// TestPhotosOnSeveralCoresSendTheSameBytes: an update of photographs
// encoded a window at a time on several cores is byte for byte the update
// one core makes (JPEG is deterministic, the order is kept), full and
// incremental, on a frame whose right edge is off the tile grid.
func TestPhotosOnSeveralCoresSendTheSameBytes(t *testing.T) {
	buf := fb.New()
	buf.Resize(1000, 700)
	paintPhoto(buf, image.Rect(0, 0, 1000, 700), 1)
	var one, several []byte
	seed := uint64(2)
	change := func() { seed++; paintPhoto(buf, image.Rect(130, 70, 1000, 400), seed) }
	withPhotoWorkers(1, func() { one = updateBytes(t, buf, change) })
	paintPhoto(buf, image.Rect(0, 0, 1000, 700), 1)
	seed = 2
	w0 := photoWindows.Load()
	withPhotoWorkers(4, func() { several = updateBytes(t, buf, change) })
	if photoWindows.Load() == w0 {
		t.Fatal("no window of photographs was encoded on several cores")
	}
	if !bytes.Contains(one, []byte{0xff, 0xd8}) {
		t.Fatal("the update has no JPEG: the test's picture is not photographic")
	}
	if !bytes.Equal(one, several) {
		t.Fatalf("several cores wrote %d bytes, one core %d: the updates differ", len(several), len(one))
	}
}

// TestPhotosOnSeveralCoresReachViewers: two viewers sharing encodings (one
// plans and encodes ahead, the other takes its bytes) get a changing
// photograph within JPEG's error, and the text-like area beside it exact.
func TestPhotosOnSeveralCoresReachViewers(t *testing.T) {
	withPhotoWorkers(4, func() {
		src := fb.New()
		src.Resize(1024, 768)
		pix, stride, _, _ := src.BeginWrite()
		for y := 0; y < 768; y++ { // two colours, text-like: lossless
			for x := 0; x < 256; x++ {
				o, v := y*stride+x*4, byte(40+(x/3+y/5)%2*180)
				pix[o], pix[o+1], pix[o+2], pix[o+3] = v, v, v, 0xff
			}
		}
		src.EndWrite(image.Rect(0, 0, 256, 768))
		paintPhoto(src, image.Rect(256, 0, 1024, 768), 9)
		addr := serve(t, Config{Buffer: src})
		cfg := &rfb.Config{Encodings: []int32{rfb.EncTight}, JPEGQuality: 7}
		a, b := dial(t, addr, cfg), dial(t, addr, cfg)
		for i, c := range []*rfb.Client{a, b} {
			waitClose(t, src, c.Framebuffer(), 40)
			waitSameArea(t, src, c.Framebuffer(), image.Rect(0, 0, 256, 768), "two-colour columns, viewer "+string(rune('a'+i)))
		}
		paintPhoto(src, image.Rect(256, 128, 1024, 768), 10)
		w0 := photoWindows.Load()
		for _, c := range []*rfb.Client{a, b} {
			waitClose(t, src, c.Framebuffer(), 40)
		}
		if photoWindows.Load() == w0 {
			t.Fatal("no window of photographs was encoded on several cores")
		}
	})
}

// TestHelpersAreBoundedAcrossSessions: helpers in use never pass
// photoWorkers, however many windows ask at once.
func TestHelpersAreBoundedAcrossSessions(t *testing.T) {
	// Sessions of earlier tests end as their connections close.
	testbed.Eventually(t, 10*time.Second, "no helper in use", func() bool { return helpersOut.Load() == 0 })
	withPhotoWorkers(3, func() {
		if got := reserveHelpers(2); got != 2 {
			t.Fatalf("first reservation: %d helpers, want 2", got)
		}
		if got := reserveHelpers(5); got != 1 {
			t.Fatalf("second reservation: %d helpers, want the 1 left", got)
		}
		if got := reserveHelpers(1); got != 0 {
			t.Fatalf("third reservation: %d helpers, want none", got)
		}
		for range 3 {
			putHelper(takeHelper())
		}
		if out := helpersOut.Load(); out != 0 {
			t.Fatalf("%d helpers still counted out after all were put back", out)
		}
	})
}

// BenchmarkPhotoUpdate: a full update of a photograph at noVNC's level 6
// (JPEG, 4:4:4) written by one session, encoded on one core and a window
// of photographs at a time on every core.
func BenchmarkPhotoUpdate(b *testing.B) {
	for _, sz := range [][2]int{{1024, 768}, {1920, 1080}, {3840, 2160}} {
		buf := fb.New()
		buf.SetMaxPixels(sz[0] * sz[1])
		buf.Resize(sz[0], sz[1])
		paintPhoto(buf, image.Rect(0, 0, sz[0], sz[1]), 1)
		for _, workers := range []int{1, min(runtime.GOMAXPROCS(0), maxPhotoWindow)} {
			b.Run(fmt.Sprintf("%dx%d/cores=%d", sz[0], sz[1], workers), func(b *testing.B) {
				withPhotoWorkers(workers, func() {
					server, client := net.Pipe()
					go io.Copy(io.Discard, client)
					defer server.Close()
					s := &session{cfg: Config{Buffer: buf, WriteTimeout: time.Minute}, conn: server, pf: defaultFormat,
						encodings: []int32{encTight, encQuality0 + 6}}
					s.tracker = buf.NewTracker()
					defer s.tracker.Close()
					for b.Loop() {
						s.want, s.full = true, true
						if err := s.maybeUpdate(); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}

// TestDroppedSharedBytesStartACollection: once the hubs have let go of
// collectEvery bytes, a collection starts (one at a time).
func TestDroppedSharedBytesStartACollection(t *testing.T) {
	c0 := collections.Load()
	for range 3 {
		dropped(collectEvery / 2)
	}
	testbed.Eventually(t, 10*time.Second, "a collection to start and end", func() bool {
		return collections.Load() > c0 && !collecting.Load()
	})
}
