package recording

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
)

func paint(b *fb.Buffer, r image.Rectangle, c [4]byte) {
	pix, stride, _, _ := b.BeginWrite()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			copy(pix[y*stride+x*4:], c[:])
		}
	}
	b.EndWrite(r)
}

// TestDesktopRecordingReplays records a mirror through the re-share's
// encoder, then plays the file into the RFB client dvv connects to real
// servers with: the frame it ends with is the mirror's last frame.
func TestDesktopRecordingReplays(t *testing.T) {
	buf := fb.New()
	if err := buf.Resize(320, 200); err != nil {
		t.Fatal(err)
	}
	paint(buf, image.Rect(0, 0, 320, 200), [4]byte{0x20, 0x40, 0x60, 0xff})
	var file bytes.Buffer
	start := time.Now()
	f, err := NewFBS(&file, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RecordDesktop(ctx, buf, f, DesktopOptions{Name: "rec", Pace: 20 * time.Millisecond}) }()
	waitBlocks := func(n int) {
		deadline := time.Now().Add(10 * time.Second)
		for countBlocks(t, f) < n {
			if time.Now().After(deadline) {
				t.Fatalf("only %d blocks recorded", countBlocks(t, f))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitBlocks(7) // handshake (6) and the first frame
	before := f.Bytes()
	// An idle screen records nothing: an absence, so watched for a window
	// of ten paces (no event can say "nothing happened").
	time.Sleep(200 * time.Millisecond)
	if f.Bytes() != before {
		t.Errorf("idle screen grew the recording from %d to %d bytes", before, f.Bytes())
	}
	paint(buf, image.Rect(10, 20, 110, 70), [4]byte{0xff, 0x00, 0x00, 0xff})
	n := countBlocks(t, f)
	waitBlocks(n + 1)
	paint(buf, image.Rect(200, 100, 260, 180), [4]byte{0x00, 0xff, 0x80, 0xff})
	waitBlocks(n + 2)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("recording ended with %v", err)
	}
	f.mu.Lock()
	data := append([]byte(nil), file.Bytes()...)
	f.mu.Unlock()

	got := replay(t, data)
	want, _ := buf.Snapshot(image.Rect(0, 0, 320, 200))
	gw, gh := got.Size()
	img, _ := got.Snapshot(image.Rect(0, 0, gw, gh))
	if gw != 320 || gh != 200 || !bytes.Equal(img.Pix, want.Pix) {
		diff, first := 0, -1
		for i := 0; i+3 < len(img.Pix) && i+3 < len(want.Pix); i += 4 {
			if !bytes.Equal(img.Pix[i:i+4], want.Pix[i:i+4]) {
				if first < 0 {
					first = i
				}
				diff++
			}
		}
		t.Fatalf("replayed frame %dx%d differs from the mirror in %d pixels (first at %d: %v vs %v)", gw, gh, diff, first/4, img.Pix[first:first+4], want.Pix[first:first+4])
	}
}

func countBlocks(t *testing.T, f *FBS) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.w.w.(*bytes.Buffer)
	n := 0
	ReadFBS(bytes.NewReader(w.Bytes()), func(uint32, []byte) error { n++; return nil })
	return n
}

// replay plays a recording's bytes into pkg/rfb's client (LastFrame).
func replay(t *testing.T, data []byte) *fb.Buffer {
	t.Helper()
	buf, err := lastFrame(context.Background(), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

func TestCastWritesAsciicastV2(t *testing.T) {
	var b bytes.Buffer
	start := time.Unix(1700000000, 0)
	c, err := NewCast(&b, 80, 24, start, 0, "box")
	if err != nil {
		t.Fatal(err)
	}
	c.Output(start.Add(1500*time.Millisecond), []byte("hi\r\n\x1b[1mbold\xff"))
	c.Marker(start.Add(2*time.Second), "type (5 chars) ok")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	var hdr map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &hdr); err != nil || hdr["version"] != 2.0 || hdr["width"] != 80.0 || hdr["height"] != 24.0 {
		t.Fatalf("header %s (%v)", lines[0], err)
	}
	var ev []any
	if err := json.Unmarshal([]byte(lines[1]), &ev); err != nil || ev[0] != 1.5 || ev[1] != "o" || ev[2] != "hi\r\n\x1b[1mbold\ufffd" {
		t.Fatalf("output event %s (%v)", lines[1], err)
	}
	if err := json.Unmarshal([]byte(lines[2]), &ev); err != nil || ev[1] != "m" {
		t.Fatalf("marker %s (%v)", lines[2], err)
	}
}

func TestCapEndsCleanly(t *testing.T) {
	var b bytes.Buffer
	c, err := NewCast(&b, 80, 24, time.Now(), 200, "")
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for i := 0; i < 20 && last == nil; i++ {
		last = c.Output(time.Now(), []byte("0123456789"))
	}
	if last != ErrCapReached || int64(b.Len()) > 200 {
		t.Fatalf("cap: %v after %d bytes", last, b.Len())
	}
}

func FuzzReadFBS(f *testing.F) {
	f.Add([]byte("FBS 001.000\n\x00\x00\x00\x01a\x00\x00\x00\x00\x00\x00\x05"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadFBS(bytes.NewReader(b), func(uint32, []byte) error { return nil })
	})
}
