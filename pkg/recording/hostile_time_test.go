package recording

import (
	"context"
	"encoding/binary"
	"errors"
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

// videoFrames counts the frames of a video, decoding it (ffprobe).
func videoFrames(t *testing.T, path string) int {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("ffprobe said %q", out)
	}
	return n
}

func writeFBS(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "vnc-1-20260101T000000.000.fbs")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// exportGuarded exports with a guard against a render that never ends:
// the guard is a hang detector, far beyond any bounded export, not a
// measure of speed.
func exportGuarded(t *testing.T, in, out string, o ExportOptions) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err := Export(ctx, in, out, o)
	if ctx.Err() != nil {
		t.Fatalf("the export of %s did not end: %v", filepath.Base(in), err)
	}
	return err
}

// A recording whose second change comes 49 days after its first (the
// 32-bit millisecond clock's end) exports as a video where that quiet
// stretch lasts maxQuietMs, not 42 million frames; the change itself is
// on its last frame.
func TestHostileFBSEventDaysAway(t *testing.T) {
	testbed.Need(t, "ffmpeg", "ffprobe")
	const days49 = 49 * 24 * 3600 * 1000
	in := writeFBS(t, hostileFBS(64, 48, map[uint32][]byte{10: rawRect(0, 0, 64, 48), days49: rawRect(0, 0, 8, 8)}))
	out := filepath.Join(t.TempDir(), "out.mp4")
	if err := exportGuarded(t, in, out, ExportOptions{FPS: 10}); err != nil {
		t.Fatal(err)
	}
	want := (10+maxQuietMs)/100 + 1 // frames at 10 a second up to the last change, cut
	if n := videoFrames(t, out); n > want+1 {
		t.Fatalf("the video has %d frames; want at most %d (the quiet stretch cut to %d ms)", n, want+1, maxQuietMs)
	} else {
		t.Logf("%d frames", n)
	}
}

// The same in a terminal recording: an output event 49 days in.
func TestHostileCastEventDaysAway(t *testing.T) {
	testbed.Need(t, "ffmpeg", "ffprobe")
	in := writeCast(t, `{"version":2,"width":20,"height":5}`+"\n"+`[0.1,"o","a"]`+"\n"+`[4233600,"o","b"]`+"\n")
	out := filepath.Join(t.TempDir(), "out.mp4")
	if err := exportGuarded(t, in, out, ExportOptions{FPS: 10}); err != nil {
		t.Fatal(err)
	}
	if n, want := videoFrames(t, out), (100+maxQuietMs)/100+1; n > want+1 {
		t.Fatalf("the video has %d frames; want at most %d", n, want+1)
	}
}

// Quiet stretches each just over the cut, so many that even cut the video
// would last beyond maxVideo: refused before anything is rendered, and
// --out is not made.
func TestHostileFBSTooLongEvenCut(t *testing.T) {
	blocks := map[uint32][]byte{}
	n := int(maxVideo/time.Millisecond)/maxQuietMs + 2
	for i := range n {
		blocks[uint32(i*(maxQuietMs+1000))] = rawRect(0, 0, 4, 4)
	}
	in := writeFBS(t, hostileFBS(64, 48, blocks))
	out := filepath.Join(t.TempDir(), "out.mp4")
	testbed.Need(t, "ffmpeg") // without it Export answers ErrNoFFmpeg first
	err := exportGuarded(t, in, out, ExportOptions{FPS: 10})
	if !errors.Is(err, ErrTooLong) {
		t.Fatalf("want ErrTooLong, got %v", err)
	}
	t.Logf("refused: %v", err)
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Fatalf("--out exists after a refusal: %v", serr)
	}
}

// desktopSize is a FramebufferUpdate of one DesktopSize pseudo-rectangle.
func desktopSize(w, h uint16) []byte {
	b := []byte{0, 0, 0, 1, 0, 0, 0, 0}
	b = binary.BigEndian.AppendUint16(b, w)
	b = binary.BigEndian.AppendUint16(b, h)
	return binary.BigEndian.AppendUint32(b, uint32(0xffffff21)) // -223
}

// resizeStorm is a recording whose screen flips between 8192x4096 and 1x1
// every 20 ms for n changes.
func resizeStorm(n int) []byte {
	blocks := map[uint32][]byte{}
	for i := range n {
		if i%2 == 0 {
			blocks[uint32(20*i+20)] = desktopSize(8192, 4096)
		} else {
			blocks[uint32(20*i+20)] = desktopSize(1, 1)
		}
	}
	return hostileFBS(64, 48, blocks)
}

// A resize storm is cut once its framebuffers pass maxResizePixels: the
// player stops with an error naming it, having allocated about that many
// pixels rather than one 128 MiB frame per change.
func TestHostileFBSResizeStorm(t *testing.T) {
	pl, err := NewPlayer(context.Background(), strings.NewReader(string(resizeStorm(2000))))
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	// Frame by frame, as an export asks: each frame waits until the
	// client has decoded everything before it.
	for ms := uint32(0); err == nil && ms < pl.DurationMs(); ms += 100 {
		_, err = pl.Frame(ms)
	}
	if !errors.Is(err, errResizeStorm) {
		t.Fatalf("want errResizeStorm, got %v", err)
	}
	// The budget is spent after 8 of the 8192x4096 frames (16 changes with
	// the 1x1 ones between); the watcher runs beside the decoder and cuts
	// the feed once it sees that, so more changes may be decoded in the
	// meantime (17 to 37 seen on a busy machine; the frames reuse their
	// arrays, so memory stays at about one frame). The client's own storm
	// rule stops it past fb.StormResizes in any case: far fewer than 2000.
	if n := pl.p.buf.Resizes(); n > fb.StormResizes+1 {
		t.Fatalf("the player followed %d changes of size before stopping", n)
	} else {
		t.Logf("stopped after %d changes: %v", n, err)
	}
}
