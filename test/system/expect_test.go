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

// TestExpectIsCalibrated, on two real desktops: a template cut from a
// mostly black screen A (a terminal's text on black) is not found on an
// unrelated mostly black screen B, though most of its pixels are black
// there too; a flat template (black only) is refused with a hint; and the
// real template is found on A where the X server put the terminal after
// it was moved.
func TestExpectIsCalibrated(t *testing.T) {
	testbed.Need(t, "xterm", "xdotool")
	t.Parallel()
	d := startDaemon(t, "")
	xa, limbA := openVNC(t, d)
	xb, limbB := openVNC(t, d)
	dir := t.TempDir()
	xa.Background(t, "xterm", "-bg", "black", "-fg", "white", "-geometry", "40x6+100+100", "-title", "termA",
		"-e", "sh", "-c", "echo Build 4711 passed; exec sleep 600")
	xb.Background(t, "xterm", "-bg", "black", "-fg", "white", "-geometry", "40x6+420+330", "-title", "termB",
		"-e", "sh", "-c", "echo Deploy halted at step 3; exec sleep 600")
	winA := visibleWindowRect(t, xa, "termA")
	visibleWindowRect(t, xb, "termB")

	// The template: terminal A's first line of text, and black to its right
	// (about 3 % of it light: black places of any screen hold the other 97
	// %). Not the line below, where the cursor changes with the focus.
	cut := image.Rect(winA.Min.X, winA.Min.Y, winA.Min.X+400, winA.Min.Y+15)
	shot := filepath.Join(dir, "a.png")
	var tmpl *image.RGBA
	testbed.Eventually(t, 10*time.Second, "terminal A's text on a dvv screen", func() bool {
		d.must("screen", limbA, "--out", shot)
		tmpl = cropRGBA(readPNG(t, shot), cut)
		return lightPixels(tmpl) > 60
	})
	tplPath := filepath.Join(dir, "build-passed.png")
	writePNG(t, tplPath, tmpl)
	testbed.Eventually(t, 10*time.Second, "terminal B's text on a dvv screen", func() bool {
		d.must("screen", limbB, "--out", filepath.Join(dir, "b.png"))
		return lightPixels(readPNG(t, filepath.Join(dir, "b.png"))) > 60
	})

	// Screen B does not hold it: not found, at the default threshold.
	r := d.dvv("expect", limbB, tplPath, "--timeout-ms", "1000", "--json")
	if e := response(t, r).Expect; r.code != cli.ExitNotSettled || e == nil || e.Found {
		t.Fatalf("a template from screen A was found on screen B: %v", r)
	}

	// Black only: refused, nothing searched, with what to do instead.
	flat := filepath.Join(dir, "black.png")
	writePNG(t, flat, cropRGBA(readPNG(t, shot), image.Rect(600, 450, 700, 500)))
	r = d.dvv("expect", limbA, flat, "--timeout-ms", "0")
	wantExit(t, r, wire.ExitUsage, wire.BadRequest)
	if !strings.Contains(r.stderr, "flat") || !strings.Contains(r.stderr, "region with detail") {
		t.Fatalf("a flat template's refusal: %v", r)
	}

	// Screen A holds it: moved by the X server, found where it went.
	if out, err := xa.Command("xdotool", "search", "--onlyvisible", "--name", "termA", "windowmove", "%@", "330", "260").CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowmove: %v %s", err, out)
	}
	var moved image.Rectangle
	testbed.Eventually(t, 10*time.Second, "terminal A moved", func() bool {
		moved = visibleWindowRect(t, xa, "termA")
		return moved.Min != winA.Min
	})
	r = d.dvv("expect", limbA, tplPath, "--timeout-ms", "10000", "--json")
	e := response(t, r).Expect
	if r.code != 0 || e == nil || !e.Found || e.Score < 0.95 {
		t.Fatalf("the template on its own screen: %v", r)
	}
	want := image.Rect(moved.Min.X, moved.Min.Y, moved.Min.X+400, moved.Min.Y+15)
	if got := image.Rect(e.Box.X, e.Box.Y, e.Box.X+e.Box.W, e.Box.Y+e.Box.H); got != want {
		t.Fatalf("found at %v; the X server put the terminal at %v", got, moved)
	}
}

// visibleWindowRect is where the X server says the mapped window with this
// title is (an xterm also owns unmapped windows of that name).
func visibleWindowRect(t *testing.T, x *testbed.VNC, title string) image.Rectangle {
	t.Helper()
	var r image.Rectangle
	testbed.Eventually(t, 10*time.Second, "window "+title, func() bool {
		out, err := x.Command("xdotool", "search", "--onlyvisible", "--name", title, "getwindowgeometry", "--shell", "%1").Output()
		if err != nil {
			return false
		}
		v := map[string]int{}
		for _, line := range strings.Split(string(out), "\n") {
			k, s, _ := strings.Cut(strings.TrimSpace(line), "=")
			v[k], _ = strconv.Atoi(s)
		}
		r = image.Rect(v["X"], v["Y"], v["X"]+v["WIDTH"], v["Y"]+v["HEIGHT"])
		return r.Dx() > 1
	})
	return r
}

// lightPixels counts the pixels of a mostly dark picture that are light.
func lightPixels(img *image.RGBA) int {
	n := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if int(img.Pix[i])+int(img.Pix[i+1])+int(img.Pix[i+2]) > 300 {
			n++
		}
	}
	return n
}
