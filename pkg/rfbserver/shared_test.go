package rfbserver

import (
	"context"
	"fmt"
	"image"
	"io"
	"net"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// pixelRects is how many pixel rectangles a viewer has received so far.
func pixelRects(c *rfb.Client) uint64 {
	n := uint64(0)
	for name, k := range c.Encodings() {
		if name == "Tight" || name == "Raw" || name == "ZRLE" {
			n += k
		}
	}
	return n
}

// TestViewersShareOneEncoding: viewers of one mirror asking for the same
// Tight settings cause one plan per update and one encode per rectangle,
// whatever their number; a viewer with other settings (another JPEG
// quality, Raw, ZRLE) gets its own, and every viewer's picture is the
// mirror's.
func TestViewersShareOneEncoding(t *testing.T) {
	src := fb.New()
	src.Resize(640, 480)
	paint(src, image.Rect(0, 0, 640, 480), 1)
	addr := serve(t, Config{Buffer: src})
	lossless := &rfb.Config{Encodings: []int32{rfb.EncTight}}
	var same []*rfb.Client
	for range 3 {
		same = append(same, dial(t, addr, lossless))
	}
	others := []*rfb.Client{
		dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncTight}, JPEGQuality: 7}),
		dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncRaw}}),
		dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncZRLE}}),
	}
	all := append(append([]*rfb.Client{}, same...), others...)
	for i, c := range all {
		if i == 3 { // JPEG: the noise is photographic (an update is drawn whole)
			waitSameArea(t, src, c.Framebuffer(), image.Rect(0, 0, 192, 480), "JPEG viewer, first frame")
			continue
		}
		waitSame(t, src, c.Framebuffer(), fmt.Sprintf("viewer %d, first frame", i))
	}
	for step := 0; step < 8; step++ {
		before := make([]uint64, len(all))
		for i, c := range all {
			before[i] = pixelRects(c)
		}
		e0, p0 := encodes.Load(), plans.Load()
		// Flat and few-colour areas (x < 200): lossless for every viewer
		// up to the tile column that also holds noise (192..256), so the
		// JPEG viewer too must match exactly left of it.
		paint(src, image.Rect(0, 64*(step%7), 200, 64*(step%7)+64), step+2)
		for i, c := range all {
			if i == 3 {
				continue
			}
			waitSame(t, src, c.Framebuffer(), fmt.Sprintf("viewer %d, change %d", i, step))
		}
		waitSameArea(t, src, others[0].Framebuffer(), image.Rect(0, 0, 192, 480), fmt.Sprintf("JPEG viewer, change %d", step))
		// Every viewer's update is in; each shared group costs one encode
		// per rectangle, ZRLE one per viewer.
		got := encodes.Load() - e0
		want := int64(pixelRects(same[0]) - before[0])
		for i, c := range others {
			want += int64(pixelRects(c) - before[3+i])
		}
		for i, c := range same[1:] {
			if n := pixelRects(c) - before[1+i]; n != pixelRects(same[0])-before[0] {
				t.Fatalf("change %d: viewers with the same encodings got %d and %d rectangles", step, pixelRects(same[0])-before[0], n)
			}
		}
		if got != want {
			t.Fatalf("change %d: %d encodes for 6 viewers in 4 groups, want %d (one per rectangle of each group)", step, got, want)
		}
		// Once every viewer knows it shares (its first update), viewers
		// with the same picture plan the same update once.
		if n := plans.Load() - p0; step > 0 && n != 4 {
			t.Fatalf("change %d: %d updates planned for 6 viewers in 4 groups, want 4", step, n)
		}
	}
}

// waitSameArea waits until got shows r of want exactly.
func waitSameArea(t *testing.T, want, got *fb.Buffer, r image.Rectangle, what string) {
	t.Helper()
	testbed.Eventually(t, 10*time.Second, fmt.Sprintf("%s: the viewer to show %v as the mirror has it", what, r), func() bool {
		a, _ := want.Snapshot(r)
		b, _ := got.Snapshot(r)
		return sameRGB(a.Pix, b.Pix)
	})
}

// TestStalledViewerHoldsNoOneBack: a viewer that asks for full Tight
// frames and never reads blocks its own session only; the others sharing
// its encodings keep getting every change.
func TestStalledViewerHoldsNoOneBack(t *testing.T) {
	src := fb.New()
	src.Resize(640, 480)
	paint(src, image.Rect(0, 0, 640, 480), 1)
	addr := serve(t, Config{Buffer: src, WriteTimeout: time.Hour})
	stalled, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	io.ReadFull(stalled, make([]byte, 12))
	stalled.Write([]byte("RFB 003.008\n"))
	io.ReadFull(stalled, make([]byte, 2)) // one security type: None
	stalled.Write([]byte{1})
	io.ReadFull(stalled, make([]byte, 4))  // SecurityResult
	stalled.Write([]byte{1})               // ClientInit, shared
	io.ReadFull(stalled, make([]byte, 24)) // ServerInit, no name
	// Tight only, as the others: the stalled session plans and encodes for
	// them too, and must never make them wait for its socket.
	stalled.Write([]byte{2, 0, 0, 1, 0, 0, 0, 7})
	request := []byte{3, 0, 0, 0, 0, 0, 640 >> 8, 640 & 0xff, 480 >> 8, 480 & 0xff}
	lossless := &rfb.Config{Encodings: []int32{rfb.EncTight}}
	a, b := dial(t, addr, lossless), dial(t, addr, lossless)
	for step := 0; step < 20; step++ {
		stalled.SetWriteDeadline(time.Now().Add(time.Second))
		stalled.Write(request) // full frames, never read: its socket fills
		paint(src, image.Rect(0, 0, 640, 480), step+2)
		waitSame(t, src, a.Framebuffer(), fmt.Sprintf("Tight viewer, change %d", step))
		waitSame(t, src, b.Framebuffer(), fmt.Sprintf("second viewer beside the stalled one, change %d", step))
	}
}

// TestSharedEncodingsMatchXServer: a real Xvnc with a scrolling xterm,
// mirrored by our RFB client and served to viewers in three groups of
// settings (two sharing lossless Tight, two in Raw, one in ZRLE): each
// viewer's picture is the mirror's exactly and as close to the X server's
// own capture as the mirror is.
func TestSharedEncodingsMatchXServer(t *testing.T) {
	testbed.Need(t, "Xvnc", "xterm", "import")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 800, Height: 600})
	v.Run(t, "xsetroot", "-solid", "#203040")
	scroll := v.Background(t, "xterm", "-geometry", "90x30+10+10", "-e", "sh", "-c", "while :; do ls -l /usr/bin; done")
	mirror, err := rfb.Dial(context.Background(), v.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	go mirror.Run()
	t.Cleanup(func() { mirror.Close() })
	addr := serve(t, Config{Buffer: mirror.Framebuffer()})
	var viewers []*rfb.Client
	for _, encs := range [][]int32{{rfb.EncTight}, {rfb.EncTight}, {rfb.EncRaw}, {rfb.EncRaw}, {rfb.EncZRLE}} {
		viewers = append(viewers, dial(t, addr, &rfb.Config{Encodings: encs}))
	}
	time.Sleep(2 * time.Second) // the viewers follow the scrolling for a while
	e0 := encodes.Load()
	scroll.Kill()
	v.Run(t, "xsetroot", "-solid", "#405060")
	deadline := time.Now().Add(20 * time.Second)
	for _, c := range viewers {
		for {
			want := v.Capture(t)
			b := want.Bounds()
			got, _ := c.Framebuffer().Snapshot(b)
			m, _ := mirror.Framebuffer().Snapshot(b)
			// Exactly the mirror, and the X server's picture but for the
			// pointer (Xvnc draws it into the mirror's, which takes no
			// cursor shape; a capture leaves it out): 32x32 at most.
			if sameRGB(m.Pix, got.Pix) && diffCount(want.Pix, got.Pix) < 32*32 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("viewer %v: %d pixels differ from the X server's capture (the mirror: %d)", c.Encodings(), diffCount(want.Pix, got.Pix), diffCount(want.Pix, m.Pix))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if encodes.Load() == e0 {
		t.Fatal("the last change was sent without an encode")
	}
}

// TestViewerLeftAloneKeepsItsStream: after updates shared with another
// viewer (each shared Tight rectangle a new zlib stream), a viewer left
// alone goes back to one stream across rectangles, and what it decodes is
// still the mirror's.
func TestViewerLeftAloneKeepsItsStream(t *testing.T) {
	for round := 0; round < 6; round++ {
		src := fb.New()
		src.Resize(640, 480)
		paint(src, image.Rect(0, 0, 640, 480), 1)
		addr := serve(t, Config{Buffer: src})
		lossless := &rfb.Config{Encodings: []int32{rfb.EncTight}}
		a, b := dial(t, addr, lossless), dial(t, addr, lossless)
		for step := 0; step < 4; step++ {
			paint(src, image.Rect(0, 64*step, 640, 64*step+64), round*10+step+2)
			waitSame(t, src, a.Framebuffer(), fmt.Sprintf("round %d, first viewer, change %d", round, step))
			waitSame(t, src, b.Framebuffer(), fmt.Sprintf("round %d, second viewer, change %d", round, step))
		}
		a.Close()
		testbed.Eventually(t, 10*time.Second, "the first viewer's session to end", func() bool { return !hubOf(src).shared() })
		for step := 0; step < 4; step++ {
			paint(src, image.Rect(0, 64*step, 640, 64*step+64), round*10+step+50)
			waitSame(t, src, b.Framebuffer(), fmt.Sprintf("round %d, the viewer left alone, change %d", round, step))
		}
	}
}

func hubOf(buf *fb.Buffer) *mirrorHub {
	hubsMu.Lock()
	defer hubsMu.Unlock()
	return hubs[buf]
}
