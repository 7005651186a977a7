package system_test

import (
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/cli"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestExpectTemplate: a template cut from an earlier screen is found once
// the dialog it shows is drawn again (where the X server put the window),
// and an expect for something not on the screen times out.
func TestExpectTemplate(t *testing.T) {
	testbed.Need(t, "xmessage", "xdotool")
	t.Parallel()
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	x.Background(t, "xclock", "-geometry", "100x100+680+10", "-update", "1") // damage elsewhere, all the time
	dir := t.TempDir()

	// Draw the dialog once and cut the template out of a dvv screen.
	dialog := startDialogAt(t, x, "+250+200")
	win := windowRect(t, x, "dvvupload")
	shot := filepath.Join(dir, "shot.png")
	cut := win.Inset(3)
	var tmpl image.Image
	testbed.Eventually(t, 10*time.Second, "the dialog on a dvv screen", func() bool {
		d.must("screen", limb, "--out", shot)
		img := readPNG(t, shot)
		tmpl = cropRGBA(img, cut)
		return !uniform(tmpl.(*image.RGBA))
	})
	tplPath := filepath.Join(dir, "dialog.png")
	writePNG(t, tplPath, tmpl)
	dialog.Kill()
	testbed.Eventually(t, 10*time.Second, "the dialog gone from the mirror", func() bool {
		return d.dvv("expect", limb, tplPath, "--timeout-ms", "0").code == cli.ExitNotSettled
	})

	// Not on the screen: expect times out (settled: false, exit 11).
	r := d.dvv("expect", limb, tplPath, "--timeout-ms", "1500", "--json")
	if r.code != cli.ExitNotSettled || response(t, r).Expect.Found {
		t.Fatalf("expect with nothing drawn: %v", r)
	}

	// Drawn after the expect began: found, where the window is.
	done := make(chan result, 1)
	go func() { done <- d.dvv("expect", limb, tplPath, "--timeout-ms", "20000", "--json") }()
	startDialogAt(t, x, "+250+200")
	r = <-done
	e := response(t, r).Expect
	if r.code != 0 || !e.Found || e.Score < 0.95 || e.Generation != 1 {
		t.Fatalf("expect after the dialog was drawn: %v", r)
	}
	win = windowRect(t, x, "dvvupload")
	if got := image.Rect(e.Box.X, e.Box.Y, e.Box.X+e.Box.W, e.Box.Y+e.Box.H); got != win.Inset(3) {
		t.Fatalf("found at %v, the X server drew the window at %v", got, win)
	}
	// A region that excludes it: not found; one that holds it: found.
	r = d.dvv("expect", limb, tplPath, "--region", "0,0,800,150", "--timeout-ms", "500")
	if r.code != cli.ExitNotSettled {
		t.Fatalf("expect outside the dialog: %v", r)
	}
	wantExit(t, d.dvv("expect", limb, tplPath, "--region", "0,0,20,20"), wire.ExitFence, wire.OutOfBounds)
	reg := strings.Join([]string{strconv.Itoa(win.Min.X - 10), strconv.Itoa(win.Min.Y - 10), strconv.Itoa(win.Dx() + 20), strconv.Itoa(win.Dy() + 20)}, ",")
	d.must("expect", limb, tplPath, "--region", reg)
	wantExit(t, d.dvv("expect", limb, shot+".missing"), wire.ExitUsage, wire.BadRequest)
}

func startDialogAt(t *testing.T, x *testbed.VNC, geometry string) *testbed.Proc {
	t.Helper()
	return testbed.Start(t, "xmessage", x.Command("xmessage", "-title", "dvvupload", "-geometry", geometry,
		"-buttons", "Upload,Cancel", "Upload the quarterly report now?"))
}

func readPNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

func cropRGBA(img *image.RGBA, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}

func uniform(img *image.RGBA) bool {
	for i := 4; i < len(img.Pix); i += 4 {
		if img.Pix[i] != img.Pix[0] || img.Pix[i+1] != img.Pix[1] || img.Pix[i+2] != img.Pix[2] {
			return false
		}
	}
	return true
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
