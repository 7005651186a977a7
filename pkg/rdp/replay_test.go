package rdp

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

// Recorded sessions: what real servers sent (from the licensing exchange
// on), replayed through the read loop without a server. Each recording is
// testdata/recordings/NAME.rdp (a header with the channel ids, then the PDUs
// as framed on the wire) and NAME.png, the framebuffer when recording ended.
// They pin the decoders and the update path to real server output: planar
// (32 bpp) and interleaved RLE (16 bpp) from FreeRDP's shadow server and
// xrdp. Regenerate with DVV_RECORD_RDP=1 go test ./pkg/rdp -run TestRecord.

const recordingMagic = "DVVRDP1\n"

func TestReplayRecordings(t *testing.T) {
	files, _ := filepath.Glob("testdata/recordings/*.rdp")
	if len(files) == 0 {
		t.Fatal("no recordings in testdata/recordings: they are committed; regenerate with DVV_RECORD_RDP=1 go test ./pkg/rdp -run TestRecord")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			stream, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want := readPNG(t, f[:len(f)-len(".rdp")]+".png")
			if !bytes.HasPrefix(stream, []byte(recordingMagic)) || len(stream) < len(recordingMagic)+4 {
				t.Fatal("not a recording")
			}
			hdr := stream[len(recordingMagic):]
			c, buf := testClient(hdr[4:])
			c.io = binary.LittleEndian.Uint16(hdr)
			c.clip.channel = binary.LittleEndian.Uint16(hdr[2:])
			if err := c.readLoop(); err != nil && !isEOF(err) {
				t.Fatalf("replay: %v", err)
			}
			w, h := buf.Size()
			got, _ := buf.Snapshot(image.Rect(0, 0, w, h))
			if got.Rect != want.Rect || !bytes.Equal(got.Pix, want.Pix) {
				t.Fatalf("replayed frame (%v) differs from the recorded one (%v)", got.Rect, want.Rect)
			}
		})
	}
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

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
	draw.Draw(rgba, rgba.Bounds(), img, image.Point{}, draw.Src)
	return rgba
}

// TestRecord records the sessions replayed above. Opt in with
// DVV_RECORD_RDP=1.
func TestRecord(t *testing.T) {
	if os.Getenv("DVV_RECORD_RDP") != "1" {
		t.Skip("set DVV_RECORD_RDP=1 to record sessions into testdata/recordings")
	}
	os.MkdirAll("testdata/recordings", 0o755)
	scene := func(t *testing.T, srv *testbed.RDP) {
		srv.Run(t, "xsetroot", "-solid", "#3a6ea5")
		srv.Background(t, "xterm", "-geometry", "40x8+10+10", "-bg", "#ffffe0", "-fg", "#202020",
			"-e", "sh", "-c", "echo recorded RDP session; seq 100 104; sleep 600")
		srv.WaitStill(t, "xterm") // mapped, and its text drawn
	}
	record := func(t *testing.T, name string, srv *testbed.RDP, depth int, w, h int, draw func()) {
		var tap bytes.Buffer
		buf := fb.New()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c, err := Dial(ctx, Config{Addr: srv.Addr, User: srv.User, Password: srv.Password, Framebuffer: buf,
			ColorDepth: depth, Width: w, Height: h, Clipboard: true, tap: &tap})
		if err != nil {
			t.Fatal(err)
		}
		draw()
		tol := 0
		if depth == 16 {
			tol = 8
		}
		waitMatch(t, srv, buf, tol)
		c.Close()
		var out bytes.Buffer
		out.WriteString(recordingMagic)
		binary.Write(&out, binary.LittleEndian, [2]uint16{c.io, c.clip.channel})
		out.Write(tap.Bytes())
		os.WriteFile("testdata/recordings/"+name+".rdp", out.Bytes(), 0o644)
		fw, fh := buf.Size()
		img, _ := buf.Snapshot(image.Rect(0, 0, fw, fh))
		var p bytes.Buffer
		png.Encode(&p, img)
		os.WriteFile("testdata/recordings/"+name+".png", p.Bytes(), 0o644)
		t.Logf("%s: %d bytes of PDUs", name, tap.Len())
	}
	for _, depth := range []int{32, 16} {
		name := fmt.Sprintf("shadow-%dbpp", depth)
		t.Run(name, func(t *testing.T) {
			srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 320, Height: 240})
			record(t, name, srv, depth, 320, 240, func() { scene(t, srv) })
		})
	}
	for _, depth := range []int{32, 16} {
		name := fmt.Sprintf("xrdp-%dbpp", depth)
		t.Run(name, func(t *testing.T) { // one xrdp per (sub)test: it holds a machine-wide lock
			x := testbed.StartXrdp(t, testbed.XrdpOptions{})
			record(t, name, x, depth, 320, 240, func() {
				x.WaitDisplay(t)
				scene(t, x)
			})
		})
	}
}

// FuzzRecording mutates real server sessions (the recordings above) and
// plays them from the licensing exchange on.
func FuzzRecording(f *testing.F) {
	files, _ := filepath.Glob("testdata/recordings/*.rdp")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) > len(recordingMagic)+4 {
			f.Add(b[len(recordingMagic)+4:])
		}
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, buf := testClient(b)
		c.clip.channel = 1004
		done := make(chan struct{})
		go func() { c.readLoop(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			panic("replay did not finish: the input hangs the client")
		}
		if w, h := buf.Size(); w > fb.MaxDim || h > fb.MaxDim {
			t.Fatalf("framebuffer %dx%d", w, h)
		}
	})
}
