package recording

import (
	"bytes"
	"context"
	"image"
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

// TestExportMP4 records a mirror whose colour changes, exports it through
// ffmpeg, and reads the video back with ffprobe and ffmpeg: the size, a
// frame per tenth of a second, and the last frame's colour.
func TestExportMP4(t *testing.T) {
	testbed.Need(t, "ffmpeg", "ffprobe")
	buf := fb.New()
	buf.Resize(160, 120)
	paint(buf, image.Rect(0, 0, 160, 120), [4]byte{0, 0, 0xff, 0xff})
	path := filepath.Join(t.TempDir(), "rec.fbs")
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFBS(file, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RecordDesktop(ctx, buf, f, DesktopOptions{Pace: 20 * time.Millisecond}) }()
	waitFor := func(n int) {
		deadline := time.Now().Add(10 * time.Second)
		for countFile(t, path) < n && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The sleeps give the video its length (an idle screen writes no
	// blocks, so only the clock can): 0.6 s blue, then 0.4 s yellow.
	waitFor(7)
	time.Sleep(600 * time.Millisecond)
	paint(buf, image.Rect(0, 0, 160, 120), [4]byte{0xff, 0xff, 0, 0xff})
	waitFor(8)
	time.Sleep(400 * time.Millisecond)
	cancel()
	<-done
	file.Close()

	out := filepath.Join(t.TempDir(), "rec.mp4")
	if err := Export(context.Background(), path, out, ExportOptions{FPS: 10}); err != nil {
		t.Fatal(err)
	}
	probe, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
		"-show_entries", "stream=width,height,nb_read_frames", "-of", "csv=p=0", out).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	fields := strings.Split(strings.TrimSpace(string(probe)), ",")
	if n, _ := strconv.Atoi(fields[len(fields)-1]); len(fields) != 3 || fields[0] != "160" || fields[1] != "120" || n < 5 {
		t.Fatalf("ffprobe says %q", probe)
	}
	last, err := exec.Command("ffmpeg", "-v", "error", "-sseof", "-0.1", "-i", out, "-frames:v", "1", "-f", "image2pipe", "-vcodec", "png", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg last frame: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(last))
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ := img.At(80, 60).RGBA()
	if r>>8 < 200 || g>>8 < 200 || b>>8 > 60 {
		t.Fatalf("last frame's colour %d,%d,%d, want yellow", r>>8, g>>8, b>>8)
	}
}

func countFile(t *testing.T, path string) int {
	b, _ := os.ReadFile(path)
	n := 0
	ReadFBS(bytes.NewReader(b), func(uint32, []byte) error { n++; return nil })
	return n
}

func TestExportWithoutFFmpeg(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if err := Export(context.Background(), "nothing.fbs", "out.mp4", ExportOptions{FPS: 10}); err != ErrNoFFmpeg {
		t.Fatalf("without ffmpeg: %v", err)
	}
}
