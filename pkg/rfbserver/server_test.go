package rfbserver

import (
	"bytes"
	"context"
	"errors"
	"image"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// paint fills r of buf with a pattern that has many colours, runs and
// flat areas, so every ZRLE tile kind is used.
func paint(buf *fb.Buffer, r image.Rectangle, seed int) {
	pix, stride, _, _ := buf.BeginWrite()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			o := y*stride + x*4
			switch {
			case x < 100: // flat
				pix[o], pix[o+1], pix[o+2] = byte(seed), 40, 200
			case x < 200: // few colours
				pix[o], pix[o+1], pix[o+2] = byte((x/3+y+seed)%3*100), 0, 0
			default: // noise
				v := (x*31 + y*17 + seed*7) * 2654435761
				pix[o], pix[o+1], pix[o+2] = byte(v>>3), byte(v>>11), byte(v>>19)
			}
			pix[o+3] = 0xff
		}
	}
	buf.EndWrite(r)
}

type recorder struct {
	mu   sync.Mutex
	keys []uint32
	pts  []image.Point
}

func (r *recorder) Pointer(x, y int, b uint8) {
	r.mu.Lock()
	r.pts = append(r.pts, image.Pt(x, y))
	r.mu.Unlock()
}
func (r *recorder) Key(k uint32, down bool) {
	r.mu.Lock()
	r.keys = append(r.keys, k)
	r.mu.Unlock()
}
func (r *recorder) CutText(string) {}

func serve(t testing.TB, cfg Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); Serve(ctx, c, cfg) }()
		}
	}()
	return ln.Addr().String()
}

func dial(t testing.TB, addr string, cfg *rfb.Config) *rfb.Client {
	t.Helper()
	c, err := rfb.Dial(context.Background(), addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go c.Run()
	t.Cleanup(func() { c.Close() })
	return c
}

func same(a, b *fb.Buffer) bool {
	aw, ah := a.Size()
	bw, bh := b.Size()
	if aw != bw || ah != bh {
		return false
	}
	ia, _ := a.Snapshot(image.Rect(0, 0, aw, ah))
	ib, _ := b.Snapshot(image.Rect(0, 0, bw, bh))
	return bytes.Equal(ia.Pix, ib.Pix)
}

func waitSame(t *testing.T, want, got *fb.Buffer, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !same(want, got) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the viewer's framebuffer never matched the mirror", what)
		}
		select {
		case <-got.Changed():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func TestViewerSeesMirror(t *testing.T) {
	for _, tc := range []struct {
		name string
		encs []int32
	}{
		{"zrle", []int32{rfb.EncZRLE}},
		{"raw", []int32{rfb.EncRaw}},
		{"copyrect+zrle", []int32{rfb.EncCopyRect, rfb.EncZRLE}},
		{"tight lossless", []int32{rfb.EncTight}},
		{"copyrect+tight", []int32{rfb.EncCopyRect, rfb.EncTight}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fb.New()
			src.Resize(320, 200)
			paint(src, image.Rect(0, 0, 320, 200), 1)
			addr := serve(t, Config{Buffer: src, Name: "test"})
			c := dial(t, addr, &rfb.Config{Encodings: tc.encs})
			waitSame(t, src, c.Framebuffer(), "first frame")
			paint(src, image.Rect(150, 50, 260, 120), 2)
			waitSame(t, src, c.Framebuffer(), "incremental")
			// A scroll: rows move up by 24, new rows appear at the bottom.
			pix, stride, _, _ := src.BeginWrite()
			copy(pix[0:], pix[24*stride:200*stride])
			src.EndWrite(image.Rect(0, 0, 320, 200))
			paint(src, image.Rect(0, 176, 320, 200), 3)
			waitSame(t, src, c.Framebuffer(), "scroll")
			src.Resize(400, 240)
			paint(src, image.Rect(0, 0, 400, 240), 4)
			waitSame(t, src, c.Framebuffer(), "resize")
		})
	}
}

func TestInputAndViewOnly(t *testing.T) {
	src := fb.New()
	src.Resize(100, 100)
	rec := &recorder{}
	c := dial(t, serve(t, Config{Buffer: src, Input: rec}), nil)
	c.PointerEvent(1, 10, 20)
	c.KeyEvent(0x61, true)
	deadline := time.Now().Add(5 * time.Second)
	for {
		rec.mu.Lock()
		n := len(rec.pts) + len(rec.keys)
		rec.mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("input never reached the Input")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rec.pts[0] != image.Pt(10, 20) || rec.keys[0] != 0x61 {
		t.Fatalf("got %v %v", rec.pts, rec.keys)
	}

	ro := &recorder{}
	v := dial(t, serve(t, Config{Buffer: src, Input: ro, ViewOnly: true}), nil)
	v.PointerEvent(1, 10, 20)
	v.KeyEvent(0x61, true)
	// The update answering this request is read after the input events on
	// the same connection: once it arrives, they were processed.
	paint(src, image.Rect(0, 0, 100, 100), 5)
	waitSame(t, src, v.Framebuffer(), "view-only")
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if len(ro.pts)+len(ro.keys) != 0 {
		t.Fatal("a view-only session passed input on")
	}
}

func TestVNCAuth(t *testing.T) {
	src := fb.New()
	src.Resize(64, 64)
	addr := serve(t, Config{Buffer: src, Auth: func(ch, resp []byte) (bool, bool) { return CheckVNCAuth("s3cret", ch, resp), false }})
	if _, err := rfb.Dial(context.Background(), addr, &rfb.Config{Password: "wrong"}); err == nil {
		t.Fatal("a wrong password was accepted")
	} else {
		var ae *rfb.AuthError
		if !errors.As(err, &ae) {
			t.Fatalf("wrong password: %v", err)
		}
	}
	c := dial(t, addr, &rfb.Config{Password: "s3cret"})
	waitSame(t, src, c.Framebuffer(), "after auth")
}

// TestContinuousUpdates: a viewer that speaks ContinuousUpdates and Fence
// gets updates pushed (paced by fences); one that does not still gets
// them on request.
func TestContinuousUpdates(t *testing.T) {
	for _, noCU := range []bool{false, true} {
		src := fb.New()
		src.Resize(320, 200)
		paint(src, image.Rect(0, 0, 320, 200), 1)
		c := dial(t, serve(t, Config{Buffer: src}), &rfb.Config{Encodings: []int32{rfb.EncTight}, NoContinuousUpdates: noCU})
		waitSame(t, src, c.Framebuffer(), "first frame")
		for i := 0; i < 20; i++ { // more changes than updates allowed in flight
			paint(src, image.Rect(0, 0, 320, 200), 2+i)
		}
		waitSame(t, src, c.Framebuffer(), "after 20 changes")
		// The fence follows the pushed update: give it time to be read.
		deadline := time.Now().Add(2 * time.Second)
		for caps := c.Capabilities(); !caps.ContinuousUpdates || caps.Fence == noCU; caps = c.Capabilities() {
			if noCU && caps.Fence || time.Now().After(deadline) {
				t.Fatalf("NoContinuousUpdates=%v: capabilities seen %+v", noCU, caps)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestLiveCursorShape: the viewer gets the machine's pointer shape, and a
// new shape when it changes, with no pixel of the desktop changing.
func TestLiveCursorShape(t *testing.T) {
	src := fb.New()
	src.Resize(64, 64)
	shape := func(size int, hot image.Point) *Cursor {
		img := image.NewRGBA(image.Rect(0, 0, size, size))
		for i := range img.Pix {
			img.Pix[i] = byte(i * 7)
		}
		for i := 3; i < len(img.Pix); i += 4 {
			img.Pix[i] = byte(i%3) * 255 / 2 // opaque, half and clear pixels
		}
		return &Cursor{Image: img, Hotspot: hot}
	}
	var mu sync.Mutex
	cur := shape(16, image.Pt(3, 4))
	live := func() *Cursor { mu.Lock(); defer mu.Unlock(); return cur }
	c := dial(t, serve(t, Config{Buffer: src, CursorShape: live}), &rfb.Config{Encodings: []int32{rfb.EncTight}})
	for i, want := range []*Cursor{cur, shape(24, image.Pt(10, 2))} {
		mu.Lock()
		cur = want
		mu.Unlock()
		deadline := time.Now().Add(5 * time.Second)
		for {
			got := c.Cursor()
			if got.Image != nil && got.Hotspot == want.Hotspot && sameCursor(want.Image, got.Image) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("shape %d never reached the viewer", i)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
