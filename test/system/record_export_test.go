package system_test

import (
	"bytes"
	"context"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/recording"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestRecordExport renders a desktop recording with `dvv record export`,
// which runs the dvvd binary beside it as the renderer (dvv itself does
// not link the RFB decoder): ffprobe reads the video back. Without
// ffmpeg, or without a dvvd to run, it answers UNSUPPORTED saying so.
func TestRecordExport(t *testing.T) {
	testbed.Need(t, "ffmpeg", "ffprobe")
	dir := t.TempDir()
	fbs := filepath.Join(dir, "rec.fbs")
	writeRecording(t, fbs)
	d := &daemon{t: t, env: cleanEnv()} // no dvvd needs to run

	r := d.must("record", "export", fbs, "--mp4")
	mp4 := filepath.Join(dir, "rec.mp4")
	if !strings.Contains(r.stdout, "wrote "+mp4) {
		t.Fatalf("export: %v", r)
	}
	probe, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=width,height", "-of", "csv=p=0", mp4).Output()
	if err != nil || strings.TrimSpace(string(probe)) != "96,64" {
		t.Fatalf("ffprobe says %q (%v)", probe, err)
	}

	unsupported := (&wire.Error{Code: wire.Unsupported}).Exit()
	r = d.run("shell-a", "", []string{"PATH=" + t.TempDir()}, "record", "export", fbs, "--mp4", "--out", filepath.Join(dir, "x.mp4"))
	wantExit(t, r, unsupported, wire.Unsupported)
	if !strings.Contains(r.stderr, "ffmpeg is not installed") {
		t.Fatalf("without ffmpeg: %v", r)
	}

	broken := filepath.Join(dir, "broken.fbs")
	os.WriteFile(broken, []byte("FBS 001.000\nnot a recording"), 0o600)
	wantExit(t, d.dvv("record", "export", broken, "--mp4"), (&wire.Error{Code: wire.BadRequest}).Exit(), wire.BadRequest)

	alone := filepath.Join(t.TempDir(), "dvv") // a dvv with no dvvd beside it or on $PATH
	b, err := os.ReadFile(dvvBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(alone, "record", "export", fbs, "--mp4")
	cmd.Env = append(cleanEnv(), "PATH="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != unsupported || !strings.Contains(stderr.String(), "no dvvd beside dvv") {
		t.Fatalf("a dvv alone: %v, %s", err, stderr.String())
	}
}

// writeRecording records a 96x64 mirror into an FBS file until it holds a
// frame update after the handshake.
func writeRecording(t *testing.T, path string) {
	t.Helper()
	buf := fb.New()
	buf.Resize(96, 64)
	pix, stride, _, _ := buf.BeginWrite()
	for y := range 64 {
		for x := range 96 {
			copy(pix[y*stride+x*4:], []byte{0x20, 0x80, 0xff, 0xff})
		}
	}
	buf.EndWrite(image.Rect(0, 0, 96, 64))
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	f, err := recording.NewFBS(file, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- recording.RecordDesktop(ctx, buf, f, recording.DesktopOptions{Pace: 20 * time.Millisecond})
	}()
	testbed.Eventually(t, 10*time.Second, "the recording to hold a frame", func() bool {
		b, _ := os.ReadFile(path)
		n := 0
		recording.ReadFBS(bytes.NewReader(b), func(uint32, []byte) error { n++; return nil })
		return n >= 4
	})
	cancel()
	<-done
}
