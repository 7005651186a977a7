package e2e

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestShareTightToVncsnapshot: vncsnapshot, a TightVNC-lineage viewer,
// reads a VNC limb's share in Tight only, lossless and with JPEG at two
// quality levels, and its picture is the X server's own capture (text and
// a photographic area side by side).
func TestShareTightToVncsnapshot(t *testing.T) {
	testbed.Need(t, "vncsnapshot", "vncpasswd", "xterm", "display", "convert")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 800, Height: 600})
	v.Run(t, "xsetroot", "-solid", "#203040")
	v.Background(t, "xterm", "-geometry", "60x20+10+10", "-e", "sh", "-c", "ls -l /usr/bin | head -40; sleep 600")
	dir := t.TempDir()
	photo := filepath.Join(dir, "photo.png")
	if out, err := exec.Command("convert", "-size", "300x200", "plasma:fractal", "-blur", "0x1", photo).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v %s", err, out)
	}
	v.Background(t, "display", "-geometry", "+460+360", photo)
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	testbed.Eventually(t, 20*time.Second, "the mirror matches the X server", func() bool {
		return diffPixels(mirror(t, c, id), v.Capture(t), 8) == 0
	})
	want := v.Capture(t)
	for _, tc := range []struct {
		args   []string
		tol    int // per channel
		within int // pixels per thousand allowed past tol
	}{
		{[]string{"-nojpeg"}, 0, 0},
		{[]string{"-vncQuality", "9"}, 24, 5},
		{[]string{"-vncQuality", "5"}, 48, 20},
	} {
		sh := must(t, c, wire.ShareArgs{Target: wire.Target{LimbID: id}, TCP: true, ViewOnly: true}).Share
		pw := exec.Command("vncpasswd", "-f")
		pw.Stdin = strings.NewReader(sh.Password + "\n")
		enc, err := pw.Output()
		if err != nil {
			t.Fatal(err)
		}
		pwFile := filepath.Join(dir, "passwd")
		os.WriteFile(pwFile, enc, 0o600)
		port := sh.TCP[strings.LastIndex(sh.TCP, ":")+1:]
		// The snapshot file is written as PNG-free JPEG at quality 100: its
		// own loss is a few levels, far under the tolerances.
		out := filepath.Join(dir, fmt.Sprintf("snap%s.jpg", strings.Join(tc.args, "")))
		args := append([]string{"20", "vncsnapshot", "-quiet", "-allowblank", "-nocursor", "-passwd", pwFile, "-quality", "100", "-encodings", "tight"}, tc.args...)
		if b, err := exec.Command("timeout", append(args, "127.0.0.1::"+port, out)...).CombinedOutput(); err != nil {
			t.Fatalf("vncsnapshot %v: %v: %s", tc.args, err, b)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		img, err := jpeg.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := image.NewRGBA(img.Bounds())
		draw.Draw(got, got.Bounds(), img, image.Point{}, draw.Src)
		tol := max(tc.tol, 8) // the snapshot file's own JPEG
		bad := diffPixels(got, want, tol)
		t.Logf("vncsnapshot %v: %v, %d pixels past %d", tc.args, got.Bounds(), bad, tol)
		if bad < 0 || bad > len(want.Pix)/4*max(tc.within, 1)/1000 {
			t.Fatalf("vncsnapshot %v: %d pixels differ from the X server's capture by more than %d", tc.args, bad, tol)
		}
	}
}

// TestShareSendsRDPPointer: a share of an xrdp limb sends the pointer
// shape xrdp forwards (the limb's cursor_shape signal), not a stock arrow.
func TestShareSendsRDPPointer(t *testing.T) {
	srv, c, id := openXrdpLimb(t)
	srv.WaitDisplay(t)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	gen := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Geometry.Generation
	var w, h float64
	testbed.Eventually(t, 20*time.Second, "the limb's cursor_shape signal has a shape", func() bool {
		x := 100 + int(w)
		must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: &x, Y: intp(100), Generation: &gen})
		sig := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.Signals[wire.SigCursorShape]
		w, _ = sig.Value["width"].(float64)
		h, _ = sig.Value["height"].(float64)
		return sig.State == wire.SignalLive && w > 0
	})
	sh := must(t, c, wire.ShareArgs{Target: wire.Target{LimbID: id}}).Share
	v := viewerOn(t, sh.ViewSocket)
	testbed.Eventually(t, 10*time.Second, fmt.Sprintf("the viewer's pointer is the limb's %vx%v shape", w, h), func() bool {
		cur := v.Cursor()
		return cur.Image != nil && cur.Image.Bounds().Dx() == int(w) && cur.Image.Bounds().Dy() == int(h)
	})
	t.Logf("pointer shape %vx%v reached the share's viewer", w, h)
}

// TestBrowserViewerTightJPEGAndResize: noVNC in Chromium (Tight, JPEG
// quality level 6 by default) through the viewer: a photograph arrives
// close (JPEG), the text beside it exact, and an xrandr resize of the
// machine reaches the page without a reconnect.
func TestBrowserViewerTightJPEGAndResize(t *testing.T) {
	testbed.Need(t, "xrandr")
	v, c, id := textAndPhotoLimb(t, 1024, 768, image.Pt(640, 448))
	ctx := browser(t)
	run(t, ctx, "open the limb page", chromedp.Navigate(viewerURL(t, c, id, "fit=0")))
	waitJS(t, ctx, "noVNC connected", `document.body.dataset.connected === '1'`)

	text := image.Rect(0, 0, 320, 192) // the xterm's first tiles
	pic := image.Rect(704, 512, 896, 640)
	testbed.Eventually(t, 60*time.Second, "the text exact and the photograph close on the canvas", func() bool {
		got, want := canvasPixels(t, ctx), mirror(t, c, id)
		if got.Bounds() != want.Bounds() {
			return false
		}
		return diffPixels(crop(got, text), crop(want, text), 0) == 0 &&
			diffPixels(crop(got, pic), crop(want, pic), 40) < pic.Dx()*pic.Dy()/100
	})
	// The photograph must have come lossy: JPEG, not a lossless encoding.
	got, want := canvasPixels(t, ctx), mirror(t, c, id)
	if diffPixels(crop(got, pic), crop(want, pic), 0) == 0 {
		t.Fatal("the photograph arrived exact: JPEG was not used where the page asked for a quality level")
	}

	v.Run(t, "xrandr", "-s", "800x600")
	testbed.Eventually(t, 60*time.Second, "the canvas is 800x600 and equals the mirror", func() bool {
		got := canvasPixels(t, ctx)
		return got.Bounds().Dx() == 800 && got.Bounds().Dy() == 600 && diffPixels(got, mirror(t, c, id), 40) < 800*600/100
	})
	var connected string
	run(t, ctx, "read the page's state", chromedp.Evaluate(`document.body.dataset.connected`, &connected))
	if connected != "1" {
		t.Fatalf("the page reconnected or dropped after the resize (connected=%q)", connected)
	}
}

// crop copies r out of img (diffPixels compares whole pixel slices).
func crop(img *image.RGBA, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(r)
	draw.Draw(out, r, img, r.Min, draw.Src)
	return out
}

// TestBrowserViewerQualityParameter: `?quality=N` on the limb page is the
// JPEG quality level noVNC asks: at level 0 a photograph arrives much
// further from the X server's pixels than at level 9, and text stays
// exact at both.
func TestBrowserViewerQualityParameter(t *testing.T) {
	_, c, id := textAndPhotoLimb(t, 800, 600, image.Pt(400, 300))
	text, pic := image.Rect(0, 0, 320, 192), image.Rect(464, 364, 656, 492)
	off := map[string]int{}
	for _, q := range []string{"0", "9"} {
		ctx := browser(t)
		run(t, ctx, "open the limb page at quality "+q, chromedp.Navigate(viewerURL(t, c, id, "fit=0&quality="+q)))
		waitJS(t, ctx, "noVNC connected", `document.body.dataset.connected === '1'`)
		testbed.Eventually(t, 60*time.Second, "the text exact and the photograph roughly there at quality "+q, func() bool {
			got, want := canvasPixels(t, ctx), mirror(t, c, id)
			return got.Bounds() == want.Bounds() && diffPixels(crop(got, text), crop(want, text), 0) == 0 &&
				diffPixels(crop(got, pic), crop(want, pic), 96) < pic.Dx()*pic.Dy()/20
		})
		off[q] = diffPixels(crop(canvasPixels(t, ctx), pic), crop(mirror(t, c, id), pic), 6)
		t.Logf("quality %s: %d of %d photograph pixels off by more than 6", q, off[q], pic.Dx()*pic.Dy())
	}
	if off["0"] <= 3*off["9"] || off["0"] < pic.Dx()*pic.Dy()/10 {
		t.Fatalf("quality 0 put %d pixels off, quality 9 %d: the page's quality parameter did not reach the server", off["0"], off["9"])
	}
}

// textAndPhotoLimb is a w×h Xvnc with an xterm of text at the top left and
// a 320x256 photograph (a blurred plasma) at at, open as a limb of a new
// dvvd; it returns once the photograph is in the limb's mirror (display
// takes its time to start).
func textAndPhotoLimb(t *testing.T, w, h int, at image.Point) (*testbed.VNC, *client.Client, string) {
	t.Helper()
	testbed.Need(t, "convert", "display")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: w, Height: h})
	v.Run(t, "xsetroot", "-solid", "#2050a0")
	v.Background(t, "xterm", "-geometry", "50x12+0+0", "-e", "sh", "-c", "echo tight-text; ls /usr/bin | head -30; sleep 600")
	photo := filepath.Join(t.TempDir(), "photo.png")
	if out, err := exec.Command("convert", "-size", "320x256", "plasma:fractal", "-blur", "0x1", photo).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v %s", err, out)
	}
	v.Background(t, "display", "-geometry", fmt.Sprintf("+%d+%d", at.X, at.Y), photo)
	c := dial(t, startDaemon(t), "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	inner := image.Rect(at.X+64, at.Y+64, at.X+256, at.Y+192)
	testbed.Eventually(t, 60*time.Second, "the photograph shown and in the mirror", func() bool {
		shown := crop(v.Capture(t), inner)
		return diffPixels(shown, uniform(inner, shown.RGBAAt(inner.Min.X, inner.Min.Y)), 8) > 0 &&
			diffPixels(crop(mirror(t, c, id), inner), shown, 8) == 0
	})
	return v, c, id
}

// uniform is r filled with one colour.
func uniform(r image.Rectangle, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(r)
	draw.Draw(img, r, &image.Uniform{C: c}, image.Point{}, draw.Src)
	return img
}
