package recording

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

// frameAt decodes frame n (0 based) of a video with ffmpeg.
func frameAt(t *testing.T, video string, n int) image.Image {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", video, "-vf", "select=eq(n\\,"+strconv.Itoa(n)+")", "-vsync", "0",
		"-frames:v", "1", "-f", "image2pipe", "-vcodec", "png", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg frame %d: %v", n, err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("frame %d: %v", n, err)
	}
	return img
}

func near(c color.Color, r, g, b uint8) bool {
	cr, cg, cb, _ := c.RGBA()
	d := func(x uint32, y uint8) bool { v := int(x>>8) - int(y); return v > -60 && v < 60 }
	return d(cr, r) && d(cg, g) && d(cb, b)
}

func writeActs(t *testing.T, media, lines string) {
	t.Helper()
	if err := os.WriteFile(ActsPath(media), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestExportDrawsDesktopActs exports a desktop recording with its acts: a
// click's ring on the frames from the one it was sent on, for a second, a
// refused click's in red, typed text as a label of its length; without
// --acts nothing is drawn.
func TestExportDrawsDesktopActs(t *testing.T) {
	testbed.Need(t, "ffmpeg")
	buf := fb.New()
	buf.Resize(320, 240)
	paint(buf, image.Rect(0, 0, 320, 240), [4]byte{0x20, 0x30, 0x40, 0xff})
	path := filepath.Join(t.TempDir(), "vnc-1-20261201T130000.000.fbs")
	file, _ := os.Create(path)
	f, err := NewFBS(file, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RecordDesktop(ctx, buf, f, DesktopOptions{Pace: 20 * time.Millisecond}) }()
	testbed.Eventually(t, 10*time.Second, "a frame recorded", func() bool { return countFile(t, path) >= 7 })
	time.Sleep(300 * time.Millisecond) // the recording's length: only the clock gives it
	n := countFile(t, path)            // before the paint: the recorder may write it at once
	paint(buf, image.Rect(0, 0, 10, 10), [4]byte{0xff, 0xff, 0xff, 0xff})
	testbed.Eventually(t, 10*time.Second, "the last change recorded", func() bool { return countFile(t, path) > n })
	cancel()
	<-done
	file.Close()
	writeActs(t, path, `{"t":0.05,"op":"click","action":"click","attachment":"a","x":100,"y":80,"outcome":"ok"}
{"t":0.05,"op":"click","action":"click","attachment":"a","x":220,"y":160,"outcome":"SCREEN_CHANGED"}
{"t":0.15,"op":"type","attachment":"a","textLen":7,"outcome":"ok"}
`)
	out := filepath.Join(t.TempDir(), "acts.mp4")
	if err := Export(context.Background(), path, out, ExportOptions{FPS: 10, Acts: true}); err != nil {
		t.Fatal(err)
	}
	f0, f1, f2 := frameAt(t, out, 0), frameAt(t, out, 1), frameAt(t, out, 2)
	if near(f0.At(100+ringRadius, 80), 0xff, 0x00, 0xc8) {
		t.Error("the click's ring is drawn before the click")
	}
	if !near(f1.At(100+ringRadius, 80), 0xff, 0x00, 0xc8) || !near(f1.At(100, 80-ringRadius), 0xff, 0x00, 0xc8) {
		t.Errorf("no ring at the click on its frame: %v", f1.At(100+ringRadius, 80))
	}
	if !near(f1.At(220+ringRadius, 160), 0xff, 0x17, 0x44) {
		t.Errorf("the refused click's ring is not red: %v", f1.At(220+ringRadius, 160))
	}
	if near(f1.At(20, 20), 0, 0, 0) || !near(f2.At(10, 20), 0, 0, 0) {
		t.Errorf("the typing's label: frame 1 at 20,20 %v (want none), frame 2 at 10,20 %v (want its box)", f1.At(20, 20), f2.At(10, 20))
	}
	if got := (Act{Op: "type", TextLen: ptr(7), Outcome: "ok"}).Label(); got != "typed 7 chars" {
		t.Errorf("the typing's label says %q", got)
	}
	plain := filepath.Join(t.TempDir(), "plain.mp4")
	if err := Export(context.Background(), path, plain, ExportOptions{FPS: 10}); err != nil {
		t.Fatal(err)
	}
	if near(frameAt(t, plain, 1).At(100+ringRadius, 80), 0xff, 0x00, 0xc8) {
		t.Error("acts drawn without Acts")
	}
}

func ptr(n int) *int { return &n }

// TestExportTerminal renders an asciicast through the terminal emulator:
// the text shows from the frame of its output on, and an act's label is
// drawn at the bottom, clear of the first lines.
func TestExportTerminal(t *testing.T) {
	testbed.Need(t, "ffmpeg")
	path := filepath.Join(t.TempDir(), "ssh-1-20261201T130000.000.cast")
	os.WriteFile(path, []byte(`{"version":2,"width":40,"height":6}
[0.25, "o", "$ echo hi\r\nhi\r\n"]
[0.6, "o", "$ "]
`), 0o600)
	writeActs(t, path, `{"t":0.2,"op":"term_send","attachment":"a","textLen":8,"outcome":"ok"}
`)
	out := filepath.Join(t.TempDir(), "term.mp4")
	if err := Export(context.Background(), path, out, ExportOptions{FPS: 10, Acts: true}); err != nil {
		t.Fatal(err)
	}
	lit := func(img image.Image, r image.Rectangle) int {
		n := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if cr, _, _, _ := img.At(x, y).RGBA(); cr>>8 > 150 {
					n++
				}
			}
		}
		return n
	}
	firstRow := image.Rect(0, 0, 9*glyphW, glyphH)
	f2, f3 := frameAt(t, out, 2), frameAt(t, out, 3)
	if lit(f2, firstRow) > 30 || lit(f3, firstRow) < 150 { // before: the cursor's underline at most
		t.Errorf("the first row lit: %d pixels before the output, %d after", lit(f2, firstRow), lit(f3, firstRow))
	}
	bottom := image.Rect(8, 6*glyphH-glyphH-14, 8+14*glyphW, 6*glyphH-8)
	if lit(f2, bottom) < 40 {
		t.Errorf("no label at the bottom on the act's frame: %d lit pixels", lit(f2, bottom))
	}
	if b, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", out).Output(); err != nil || strings.TrimSpace(string(b)) != "400,120" {
		t.Errorf("size %q %v, want the grid's 40x6 cells of 10x20", b, err)
	}
}

// TestExportTerminalColours: an exported terminal keeps its colours (SGR
// foreground, bold's bright half, reverse video) and its columns after a
// wide character, which is drawn as a box two cells wide.
func TestExportTerminalColours(t *testing.T) {
	testbed.Need(t, "ffmpeg")
	path := filepath.Join(t.TempDir(), "ssh-1-20261201T130000.000.cast")
	os.WriteFile(path, []byte(`{"version":2,"width":20,"height":2}
[0.1, "o", "\u001b[31mRRR\u001b[0m \u001b[7mVVV\u001b[0m \u4e16X\u001b[1;32mGG\u001b[0m \u001b[32mGG\u001b[0m"]
[0.5, "o", ""]
`), 0o600)
	out := filepath.Join(t.TempDir(), "colours.mp4")
	if err := Export(context.Background(), path, out, ExportOptions{FPS: 10}); err != nil {
		t.Fatal(err)
	}
	img := frameAt(t, out, 2)
	// mean is the average colour of a cell's pixels that stand out from
	// the background (glyph strokes), or of all its pixels.
	mean := func(col, cols int, strokes bool) (r, g, b, n int) {
		for y := 2; y < glyphH-2; y++ {
			for x := col*glyphW + 1; x < (col+cols)*glyphW-1; x++ {
				cr, cg, cb, _ := img.At(x, y).RGBA()
				if d := abs(int(cr>>8)-int(termBg.R)) + abs(int(cg>>8)-int(termBg.G)) + abs(int(cb>>8)-int(termBg.B)); strokes && d < 90 {
					continue
				}
				r, g, b, n = r+int(cr>>8), g+int(cg>>8), b+int(cb>>8), n+1
			}
		}
		if n > 0 {
			r, g, b = r/n, g/n, b/n
		}
		return
	}
	if r, g, b, n := mean(0, 3, true); n < 20 || r < g+50 || r < b+50 {
		t.Errorf("red text: mean (%d,%d,%d) over %d stroke pixels", r, g, b, n)
	}
	if r, g, b, _ := mean(4, 3, false); r < 0x90 || g < 0x90 || b < 0x90 {
		t.Errorf("reverse video: the cells' mean is (%d,%d,%d), want the light foreground as background", r, g, b)
	}
	if _, _, _, n := mean(8, 2, true); n < 20 {
		t.Errorf("the wide character's box: %d lit pixels over its two cells", n)
	}
	if _, _, _, n := mean(10, 1, true); n < 15 {
		t.Errorf("X after the wide character is not in column 10: %d lit pixels", n)
	}
	_, plain, _, _ := mean(14, 2, true)
	if r, g, b, n := mean(11, 2, true); n < 20 || g < r+50 || g < b+50 || g < plain+30 {
		t.Errorf("bold green: mean (%d,%d,%d) over %d stroke pixels, want green brighter than plain green's %d", r, g, b, n, plain)
	}
}

func abs(n int) int { return max(n, -n) }

// TestPlayerSeeksBothWays shows a recording at a time after another and
// then before it: each frame is what the screen was then.
func TestPlayerSeeksBothWays(t *testing.T) {
	buf := fb.New()
	buf.Resize(64, 48)
	paint(buf, image.Rect(0, 0, 64, 48), [4]byte{0xff, 0, 0, 0xff})
	var file bytes.Buffer
	start := time.Now()
	f, _ := NewFBS(&file, start, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RecordDesktop(ctx, buf, f, DesktopOptions{Pace: 20 * time.Millisecond}) }()
	testbed.Eventually(t, 10*time.Second, "the red frame", func() bool { return countBlocks(t, f) >= 7 })
	time.Sleep(100 * time.Millisecond)
	paint(buf, image.Rect(0, 0, 64, 48), [4]byte{0, 0, 0xff, 0xff})
	testbed.Eventually(t, 10*time.Second, "the blue frame", func() bool { return countBlocks(t, f) >= 8 })
	cancel()
	<-done
	f.mu.Lock()
	data := bytes.Clone(file.Bytes())
	f.mu.Unlock()
	pl, err := NewPlayer(context.Background(), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	var blue uint32
	ReadFBS(bytes.NewReader(data), func(ms uint32, _ []byte) error { blue = ms; return nil })
	for _, step := range []struct {
		ms   uint32
		want [3]uint8
	}{{blue, [3]uint8{0, 0, 0xff}}, {blue - 1, [3]uint8{0xff, 0, 0}}, {blue + 50, [3]uint8{0, 0, 0xff}}, {0, [3]uint8{}}} {
		img, err := pl.Frame(step.ms)
		if err != nil {
			t.Fatal(err)
		}
		if step.ms == 0 {
			continue // the first frame may or may not be in at 0 ms
		}
		if c := img.RGBAAt(10, 10); [3]uint8{c.R, c.G, c.B} != step.want {
			t.Errorf("at %d ms: %v, want %v", step.ms, c, step.want)
		}
	}
}
