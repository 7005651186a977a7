package rfb

import (
	"context"
	"image"
	"net"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
)

// TestTightFillReachesTrackersAsFill: a Tight fill reaches the buffer's
// trackers as a fill, a Raw rectangle in the same update as other damage,
// and the buffer holds the final picture (the Raw pixels over the fill).
func TestTightFillReachesTrackersAsFill(t *testing.T) {
	buf := fb.New()
	tr := buf.NewTracker()
	defer tr.Close()
	sized := make(chan struct{})
	srv := startFake(t, 16, 8, nil, func(c net.Conn) {
		select { // the connect's resize is taken: what follows is the update's
		case <-sized:
		case <-time.After(5 * time.Second):
		}
		fill := append(rectHeader(0, 0, 16, 8, EncTight), tightFill<<4, 10, 20, 30)
		raw := append(rectHeader(2, 1, 2, 1, EncRaw), px(255, 0, 0)...)
		raw = append(raw, px(0, 255, 0)...)
		c.Write(update(fill, raw))
		drain(c)
	})
	c, err := Dial(context.Background(), srv.addr(), &Config{Framebuffer: buf})
	if err != nil {
		t.Fatal(err)
	}
	go c.Run()
	defer c.Close()
	tr.Take()
	close(sized)
	deadline := time.Now().Add(5 * time.Second)
	var d fb.Damage
	for len(d.Fills) == 0 && time.Now().Before(deadline) {
		<-time.After(10 * time.Millisecond)
		d = tr.Take()
	}
	if len(d.Fills) != 1 || d.Fills[0] != (fb.Fill{R: image.Rect(0, 0, 16, 8), C: [4]byte{10, 20, 30, 255}}) {
		t.Fatalf("fills %v", d.Fills)
	}
	if d.Other != image.Rect(2, 1, 4, 2) {
		t.Fatalf("other damage %v, want the Raw rectangle", d.Other)
	}
	img, _ := buf.Snapshot(image.Rect(0, 0, 16, 8))
	for _, p := range []struct {
		x, y int
		c    [3]byte
	}{{0, 0, [3]byte{10, 20, 30}}, {15, 7, [3]byte{10, 20, 30}}, {2, 1, red}, {3, 1, green}, {4, 1, [3]byte{10, 20, 30}}} {
		o := img.PixOffset(p.x, p.y)
		if got := [3]byte{img.Pix[o], img.Pix[o+1], img.Pix[o+2]}; got != p.c || img.Pix[o+3] != 0xff {
			t.Errorf("pixel (%d,%d) = %v alpha %d, want %v", p.x, p.y, got, img.Pix[o+3], p.c)
		}
	}
}
