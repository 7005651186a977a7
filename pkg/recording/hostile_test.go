package recording

import (
	"bytes"
	"context"
	"encoding/binary"
	"github.com/dvvhq/dvv/internal/testbed"
	"image"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileFBS is an FBS file whose recorded server announces a w x h
// screen and then sends blocks (already encoded server messages), each
// stamped with its time.
func hostileFBS(w, h uint16, blocks map[uint32][]byte) []byte {
	hs := []byte("RFB 003.008\n")
	hs = append(hs, 1, 1, 0, 0, 0, 0)
	hs = binary.BigEndian.AppendUint16(hs, w)
	hs = binary.BigEndian.AppendUint16(hs, h)
	hs = append(hs, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0)
	hs = binary.BigEndian.AppendUint32(hs, 1)
	hs = append(hs, 'x')
	var out bytes.Buffer
	f, _ := NewFBS(&out, time.Now(), 0)
	f.Block(f.start, hs)
	times := make([]uint32, 0, len(blocks))
	for ms := range blocks {
		times = append(times, ms)
	}
	for _, ms := range sorted(times) {
		f.Block(f.start.Add(time.Duration(ms)*time.Millisecond), blocks[ms])
	}
	return out.Bytes()
}

func sorted(v []uint32) []uint32 {
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			if v[j] < v[i] {
				v[i], v[j] = v[j], v[i]
			}
		}
	}
	return v
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A recording whose server claims 65535x65535 (16 GiB of pixels) is
// refused with an error, and nothing of that size is allocated.
func TestHostileFBSClaimsAHugeScreen(t *testing.T) {
	data := hostileFBS(65535, 65535, nil)
	before := heapAfterGC()
	pl, err := NewPlayer(context.Background(), bytes.NewReader(data))
	if err == nil {
		defer pl.Close()
		_, err = pl.Frame(0)
	}
	if err == nil {
		t.Fatal("a 65535x65535 recording played; want an error")
	}
	t.Logf("refused: %v", err)
	if grown := int64(heapAfterGC()) - int64(before); grown > 64<<20 {
		t.Fatalf("heap grew %d MiB for a refused recording", grown>>20)
	}
}

// Truncated recordings are errors, never panics or hangs.
func TestHostileFBSTruncated(t *testing.T) {
	full := hostileFBS(64, 48, map[uint32][]byte{10: rawRect(0, 0, 64, 48)})
	for _, n := range []int{0, 5, 12, 15, 20, 40, 60, len(full) - 3} {
		pl, err := NewPlayer(context.Background(), bytes.NewReader(full[:n]))
		if err != nil {
			continue
		}
		done := make(chan struct{})
		go func() { pl.Frame(1 << 31); pl.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("a recording cut at %d bytes hangs the player", n)
		}
	}
}

// rawRect is a FramebufferUpdate of one Raw rectangle of grey pixels.
func rawRect(x, y, w, h uint16) []byte {
	b := []byte{0, 0, 0, 1}
	for _, v := range []uint16{x, y, w, h} {
		b = binary.BigEndian.AppendUint16(b, v)
	}
	b = append(b, 0, 0, 0, 0)
	return append(b, bytes.Repeat([]byte{0x80, 0x80, 0x80, 0}, int(w)*int(h))...)
}

func writeCast(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "term-20260101T000000.000.cast")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A cast header claiming an enormous grid is refused before anything is
// sized after it (the export's emulator and frames, the page's xterm).
func TestHostileCastClaimsAHugeGrid(t *testing.T) {
	for _, hdr := range []string{
		`{"version":2,"width":100000,"height":100000}`,
		`{"version":2,"width":80,"height":2000000000}`,
		`{"version":2,"width":9223372036854775807,"height":24}`,
	} {
		_, _, err := DecodeCast(strings.NewReader(hdr + "\n[0.1,\"o\",\"hi\"]\n"))
		if err == nil {
			t.Errorf("%s was accepted; want an error naming the limit", hdr)
			continue
		}
		t.Logf("%s: %v", hdr, err)
	}
}

// Event times that are negative, not numbers a clock gives, or far beyond
// any recording's length are refused: an export would otherwise render
// frames until the end of time.
func TestHostileCastTimes(t *testing.T) {
	for _, ev := range []string{`[1e300,"o","x"]`, `[-5,"o","x"]`, `[1e10,"o","x"]`} {
		_, _, err := DecodeCast(strings.NewReader(`{"version":2,"width":80,"height":24}` + "\n" + ev + "\n"))
		if err == nil {
			t.Errorf("event %s was accepted; want an error", ev)
			continue
		}
		t.Logf("%s: %v", ev, err)
	}
}

// Export of a hostile cast ends with an error, promptly.
func TestHostileCastExport(t *testing.T) {
	testbed.Need(t, "ffmpeg")
	p := writeCast(t, `{"version":2,"width":80,"height":24}`+"\n"+`[1e300,"o","x"]`+"\n")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := Export(ctx, p, filepath.Join(t.TempDir(), "out.mp4"), ExportOptions{FPS: 10})
	if err == nil || ctx.Err() != nil {
		t.Fatalf("export of a cast whose event is at 1e300 s: err %v, ctx %v; want a prompt error", err, ctx.Err())
	}
	t.Logf("refused: %v", err)
}

// The largest grid a cast may claim still makes frames too big to render
// (10000x20000 pixels, 800 MiB each): the export refuses it up front.
func TestHostileCastExportOfTheLargestGrid(t *testing.T) {
	testbed.Need(t, "ffmpeg")
	p := writeCast(t, `{"version":2,"width":1000,"height":1000}`+"\n"+`[0.5,"o","x"]`+"\n")
	before := heapAfterGC()
	err := Export(context.Background(), p, filepath.Join(t.TempDir(), "out.mp4"), ExportOptions{FPS: 10})
	if err == nil {
		t.Fatal("a 1000x1000 terminal exported; want a refusal naming the frame size")
	}
	t.Logf("refused: %v", err)
	if grown := int64(heapAfterGC()) - int64(before); grown > 64<<20 {
		t.Fatalf("heap grew %d MiB for a refused export", grown>>20)
	}
}

// Acts with coordinates far off the frame, or labels longer than it, are
// drawn as far as the frame goes: a hostile act log cannot make an export
// walk a line of 2^40 points or draw a megabyte of text per frame.
func TestHostileActsAreDrawnWithinTheFrame(t *testing.T) {
	far, near, neg := 1<<40, 100, -(1 << 40)
	keys := strings.Repeat("k", 1<<20)
	acts := []Act{
		{T: 0, Op: "click", Action: "drag", X: &near, Y: &near, ToX: &far, ToY: &far, Outcome: "ok"},
		{T: 0, Op: "click", Action: "drag", X: &neg, Y: &near, ToX: &far, ToY: &near, Outcome: "TIMEOUT"},
		{T: 0, Op: "click", Action: "left", X: &far, Y: &far, Outcome: strings.Repeat("E", 1<<20)},
		{T: 0, Op: "key", Keys: keys, Outcome: "ok"},
	}
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	done := make(chan struct{})
	go func() { drawActs(img, acts, false); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("drawing four hostile acts on one frame does not end")
	}
	// The drag from (100,100) towards (2^40,2^40) is drawn on the frame.
	if c := img.RGBAAt(150, 150); c != actColour {
		t.Errorf("pixel on the drag's line: %v, want the act colour", c)
	}
	// The second drag runs along y=100 from far left to far right.
	if c := img.RGBAAt(10, 100); c != refusedColour {
		t.Errorf("pixel on the refused drag's line: %v, want the refused colour", c)
	}
}

// An exported video is as private as its recording: 0600, wherever --out
// puts it and whatever the umask, an existing file's mode included.
func TestExportedVideoIsPrivate(t *testing.T) {
	testbed.Need(t, "ffmpeg")
	p := writeCast(t, `{"version":2,"width":20,"height":5}`+"\n"+`[0.2,"o","secret text"]`+"\n")
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	outs := []string{filepath.Join(t.TempDir(), "new.mp4"), filepath.Join(t.TempDir(), "existing.mp4")}
	os.WriteFile(outs[1], []byte("old"), 0o644)
	for _, out := range outs {
		if err := Export(context.Background(), p, out, ExportOptions{FPS: 5}); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(out)
		if err != nil || st.Size() < 100 {
			t.Fatalf("%s: %v", out, err)
		}
		if mode := st.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s is %v; want 0600", filepath.Base(out), mode)
		}
	}
}
