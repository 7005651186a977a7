package rfbserver

import (
	"context"
	"fmt"
	"image"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// writeFills paints fills and other rectangles into buf in one write, as
// our RFB client does with an update: the fills first, then the rest
// (noise) over them.
func writeFills(buf *fb.Buffer, fills []fb.Fill, other []image.Rectangle, seed int) {
	pix, stride, _, _ := buf.BeginWrite()
	for _, f := range fills {
		for y := f.R.Min.Y; y < f.R.Max.Y; y++ {
			for x := f.R.Min.X; x < f.R.Max.X; x++ {
				copy(pix[y*stride+x*4:], f.C[:])
			}
		}
	}
	for _, r := range other {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				v := (x*31 + y*17 + seed*7) * 2654435761
				copy(pix[y*stride+x*4:], []byte{byte(v >> 3), byte(v >> 11), byte(v >> 19), 0xff})
			}
		}
	}
	buf.EndWriteFills(other, fills)
}

// TestFillsReachViewers: fills the mirror's writer knows of reach Tight
// viewers as Tight fills, with no pixel rectangle encoded for a fill that
// spans whole tile columns, and every viewer (two Tight ones sharing
// their encodings, ZRLE, Raw) ends with the mirror's exact picture:
// fills off the tile grid, fills overlapping each other, other damage
// painted over a fill in the same write, a fill over other damage, and
// a scroll (a CopyRect) under a fill.
func TestFillsReachViewers(t *testing.T) {
	src := fb.New()
	src.Resize(640, 480)
	paint(src, image.Rect(0, 0, 640, 480), 1)
	addr := serve(t, Config{Buffer: src})
	tight := dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncCopyRect, rfb.EncTight}})
	viewers := []*rfb.Client{tight,
		dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncCopyRect, rfb.EncTight}}),
		dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncZRLE}}),
		dial(t, addr, &rfb.Config{Encodings: []int32{rfb.EncRaw}}),
	}
	for i, v := range viewers {
		waitSame(t, src, v.Framebuffer(), fmt.Sprintf("viewer %d, first frame", i))
	}
	red, green, blue := [4]byte{200, 30, 30, 255}, [4]byte{30, 200, 60, 255}, [4]byte{20, 40, 210, 255}

	// A scroll with a fill painted over the scrolled band in the same
	// write: the fill goes first, the CopyRect after it, and both read
	// what the hashes say the viewer has.
	copies := tight.Encodings()["CopyRect"]
	pix, stride, _, _ := src.BeginWrite()
	for y := 64; y < 448-20; y++ {
		copy(pix[y*stride:(y+1)*stride], pix[(y+20)*stride:(y+21)*stride])
	}
	band := fb.Fill{R: image.Rect(0, 300, 640, 340), C: red}
	for y := band.R.Min.Y; y < band.R.Max.Y; y++ {
		for x := 0; x < 640; x++ {
			copy(pix[y*stride+x*4:], band.C[:])
		}
	}
	src.EndWriteFills([]image.Rectangle{image.Rect(0, 64, 640, 448)}, []fb.Fill{band})
	for k, v := range viewers {
		waitSame(t, src, v.Framebuffer(), fmt.Sprintf("scroll under a fill: viewer %d", k))
	}
	if tight.Encodings()["CopyRect"] == copies {
		t.Fatal("scroll under a fill: no CopyRect")
	}

	steps := []struct {
		name  string
		fills []fb.Fill
		other []image.Rectangle
	}{
		{"full frame", []fb.Fill{{R: image.Rect(0, 0, 640, 480), C: red}}, nil},
		{"off the tile grid", []fb.Fill{{R: image.Rect(37, 45, 337, 245), C: green}}, nil},
		{"overlapping fills", []fb.Fill{{R: image.Rect(10, 10, 300, 200), C: blue}, {R: image.Rect(100, 90, 500, 400), C: red}}, nil},
		{"noise over a fill", []fb.Fill{{R: image.Rect(0, 0, 640, 480), C: green}}, []image.Rectangle{image.Rect(70, 80, 150, 130)}},
		{"a fill over noise", []fb.Fill{{R: image.Rect(64, 0, 256, 480), C: blue}}, []image.Rectangle{image.Rect(0, 100, 640, 140)}},
	}
	for i, st := range steps {
		f0, e0 := fillsSent.Load(), encodes.Load()
		others0 := pixelRects(viewers[2]) + pixelRects(viewers[3])
		writeFills(src, st.fills, st.other, i)
		for k, v := range viewers {
			waitSame(t, src, v.Framebuffer(), fmt.Sprintf("%s: viewer %d", st.name, k))
		}
		if fillsSent.Load() == f0 {
			t.Fatalf("%s: no fill passed on as such", st.name)
		}
		// ZRLE and Raw encode every rectangle they send; the Tight
		// viewers nothing for a fill spanning whole tile columns.
		if others := int64(pixelRects(viewers[2]) + pixelRects(viewers[3]) - others0); i == 0 && encodes.Load()-e0 != others {
			t.Fatalf("full-frame fill: %d pixel rectangles encoded, want the ZRLE and Raw viewers' %d only", encodes.Load()-e0, others)
		}
	}
}

// TestFillsMatchXServer: Xvnc's own solid fills (a new root colour, a
// one-colour window off the tile grid) pass through the mirror to Tight
// viewers as fills, and every viewer's picture is the X server's capture.
func TestFillsMatchXServer(t *testing.T) {
	testbed.Need(t, "Xvnc", "xsetroot", "display", "import")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 800, Height: 600})
	v.Run(t, "xsetroot", "-solid", "#203040")
	mirror, err := rfb.Dial(context.Background(), v.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	go mirror.Run()
	t.Cleanup(func() { mirror.Close() })
	addr := serve(t, Config{Buffer: mirror.Framebuffer()})
	var viewers []*rfb.Client
	for _, encs := range [][]int32{{rfb.EncCopyRect, rfb.EncTight}, {rfb.EncTight}, {rfb.EncZRLE}} {
		viewers = append(viewers, dial(t, addr, &rfb.Config{Encodings: encs}))
	}
	matchCapture := func(what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for _, c := range viewers {
			for {
				want := v.Capture(t)
				b := want.Bounds()
				got, _ := c.Framebuffer().Snapshot(b)
				m, _ := mirror.Framebuffer().Snapshot(b)
				// The pointer is in the mirror's picture, not the capture.
				if sameRGB(m.Pix, got.Pix) && diffCount(want.Pix, got.Pix) < 32*32 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: viewer %v: %d pixels differ from the X server's capture (the mirror: %d)", what, c.Encodings(), diffCount(want.Pix, got.Pix), diffCount(want.Pix, m.Pix))
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	matchCapture("first frame")
	for i, colour := range []string{"#c03030", "#30c060", "#2040d0"} {
		f0 := fillsSent.Load()
		v.Run(t, "xsetroot", "-solid", colour)
		matchCapture("root " + colour)
		if fillsSent.Load() == f0 {
			t.Fatalf("root %s: no fill passed on as such", colour)
		}
		if i == 0 {
			v.Background(t, "display", "-size", "301x203", "xc:#e0e040", "-geometry", "+37+45")
			matchCapture("a one-colour window off the tile grid")
		}
	}
}
