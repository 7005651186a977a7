package rfb

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

// TestMeasureEncodings plays the same scripted 1080p scene on a fresh Xvnc
// for each encoding, records every byte the server sent after the
// handshake, then replays the recording through the decoder to time it.
// It writes a Markdown table for docs/benchmarks.md. Run with:
//
//	DVV_RFB_MEASURE=1 go test ./pkg/rfb -run TestMeasureEncodings -v -timeout 20m
func TestMeasureEncodings(t *testing.T) {
	if os.Getenv("DVV_RFB_MEASURE") != "1" {
		t.Skip("set DVV_RFB_MEASURE=1 to measure encodings (takes minutes)")
	}
	testbed.Need(t, "Xvnc", "xterm", "xdotool", "convert", "display")
	img := filepath.Join(t.TempDir(), "photo.png")
	if out, err := exec.Command("convert", "-seed", "7", "-size", "1920x1080", "plasma:fractal", "-blur", "0x1", img).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v %s", err, out)
	}
	type run struct {
		name string
		cfg  Config
	}
	runs := []run{
		{"Raw", Config{Encodings: []int32{EncRaw}}},
		{"CopyRect+Raw", Config{Encodings: []int32{EncCopyRect, EncRaw}}},
		{"RRE", Config{Encodings: []int32{EncCopyRect, EncRRE}}},
		{"Hextile", Config{Encodings: []int32{EncCopyRect, EncHextile}}},
		{"Zlib", Config{Encodings: []int32{EncCopyRect, EncZlib}}},
		{"ZRLE", Config{Encodings: []int32{EncCopyRect, EncZRLE}}},
		{"Tight (lossless)", Config{Encodings: []int32{EncCopyRect, EncTight}}},
		{"Tight + JPEG q8", Config{Encodings: []int32{EncCopyRect, EncTight}, JPEGQuality: 9}},
	}
	var table strings.Builder
	table.WriteString("| encodings offered | bytes on the wire | vs Raw | decode time (replay) | decode MB/s of pixels |\n| --- | ---: | ---: | ---: | ---: |\n")
	var rawBytes int
	for _, r := range runs {
		rec, pixels := playScene(t, r.cfg, img)
		d := replay(t, rec, 5)
		if rawBytes == 0 {
			rawBytes = len(rec)
		}
		fmt.Fprintf(&table, "| %s | %.1f MiB | %.3f | %.0f ms | %.0f |\n", r.name, float64(len(rec))/(1<<20),
			float64(len(rec))/float64(rawBytes), float64(d.Microseconds())/1000, float64(pixels*4)/d.Seconds()/1e6)
	}
	t.Logf("\n%s", table.String())
	if out := os.Getenv("DVV_RFB_MEASURE_OUT"); out != "" {
		os.WriteFile(out, []byte(table.String()), 0o644)
	}
}

// playScene runs the scene and returns the recorded server stream and how
// many pixels its updates covered.
func playScene(t *testing.T, cfg Config, img string) ([]byte, int64) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	v.Run(t, "xsetroot", "-solid", "#405060")
	cfg.Framebuffer = fb.New()
	cfg.Shared = true
	c, err := Dial(context.Background(), v.Addr, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	c.r.src = io.TeeReader(c.r.src, &rec)
	done := make(chan error, 1)
	go func() { done <- c.Run() }()
	testbed.Eventually(t, 10*time.Second, "first frame", func() bool { return cfg.Framebuffer.Coverage() == 1 })

	// 1. A terminal scrolling.
	v.Background(t, "xterm", "-geometry", "120x40+100+100", "-fa", "DejaVu Sans Mono", "-fs", "11", "-e", "sh", "-c",
		"i=0; while [ $i -lt 600 ]; do i=$((i+1)); echo \"line $i: the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJ\"; sleep 0.004; done; sleep 600")
	// Record the whole scroll: the window appears, and the screen is quiet
	// again once its 600 lines are out.
	v.Run(t, "xdotool", "search", "--sync", "--onlyvisible", "--class", "xterm")
	quiet(cfg.Framebuffer, time.Second)
	// 2. The window dragged across the screen.
	win := strings.Fields(v.Run(t, "xdotool", "search", "--sync", "--class", "xterm"))[0]
	for i := 0; i <= 40; i++ {
		v.Run(t, "xdotool", "windowmove", win, fmt.Sprint(100+i*20), fmt.Sprint(100+i*8))
		time.Sleep(20 * time.Millisecond) // the drag's pace: part of the scene measured
	}
	// 3. A full-screen image.
	v.Run(t, "xdotool", "windowunmap", win)
	v.Background(t, "display", "-geometry", "+0+0", "-borderwidth", "0", img)
	quiet(cfg.Framebuffer, time.Second)
	c.Close()
	<-done
	return rec.Bytes(), replayPixels(t, rec.Bytes())
}

// quiet waits until the framebuffer has not changed for d.
func quiet(buf *fb.Buffer, d time.Duration) {
	for {
		select {
		case <-buf.Changed():
		case <-time.After(d):
			return
		}
	}
}

// replayClient decodes a recorded stream with writes discarded.
func replayClient(stream []byte) *Client {
	c := &Client{conn: &scriptConn{r: bytes.NewReader(nil)}, buf: fb.New()}
	c.r = newReader(bytes.NewReader(stream))
	c.setupDecoder()
	c.dec.resize(1920, 1080)
	c.contOn = true
	return c
}

// replayOnce decodes the whole recording, copying into the framebuffer
// as the live client does.
func replayOnce(stream []byte) error {
	c := replayClient(stream)
	for {
		t := c.r.u8()
		if c.r.err != nil {
			return nil
		}
		if err := c.message(t); err != nil {
			return err
		}
	}
}

func replayPixels(t *testing.T, stream []byte) int64 {
	c := replayClient(stream)
	var pixels int64
	c.buf = fb.New()
	for {
		typ := c.r.u8()
		if c.r.err != nil {
			break
		}
		if typ == msgFramebufferUpdate {
			if err := c.dec.readUpdate(c.r); err != nil {
				t.Fatalf("replay: %v", err)
			}
			for _, r := range c.dec.damage {
				pixels += int64(r.Dx() * r.Dy())
			}
			for _, f := range c.dec.fills {
				pixels += int64(f.R.Dx() * f.R.Dy())
			}
			c.dec.damage, c.dec.fills = c.dec.damage[:0], c.dec.fills[:0]
			continue
		}
		if err := c.message(typ); err != nil {
			t.Fatalf("replay: %v", err)
		}
	}
	return pixels
}

// replay decodes the recording n times and returns the fastest run.
func replay(t *testing.T, stream []byte, n int) time.Duration {
	best := time.Duration(1 << 62)
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := replayOnce(stream); err != nil {
			t.Fatalf("replay: %v", err)
		}
		best = min(best, time.Since(start))
	}
	return best
}
