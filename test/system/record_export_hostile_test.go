package system_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/recording"
	"github.com/dvvhq/dvv/pkg/wire"
)

// hostileFBSFile writes an FBS file whose server announces 64x48 and then
// sends the given server messages at their times (ms).
func hostileFBSFile(t *testing.T, times []uint32, msgs [][]byte) string {
	t.Helper()
	hs := []byte("RFB 003.008\n")
	hs = append(hs, 1, 1, 0, 0, 0, 0, 0, 64, 0, 48)
	hs = append(hs, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0)
	hs = append(hs, 0, 0, 0, 1, 'x')
	var out bytes.Buffer
	start := time.Unix(0, 0)
	f, err := recording.NewFBS(&out, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Block(start, hs)
	for i, ms := range times {
		f.Block(start.Add(time.Duration(ms)*time.Millisecond), msgs[i])
	}
	p := filepath.Join(t.TempDir(), "vnc-1-20260101T000000.000.fbs")
	if err := os.WriteFile(p, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// update is a FramebufferUpdate of one rectangle header with its body.
func update(x, y, w, h uint16, enc int32, body []byte) []byte {
	b := []byte{0, 0, 0, 1}
	for _, v := range []uint16{x, y, w, h} {
		b = binary.BigEndian.AppendUint16(b, v)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(enc))
	return append(b, body...)
}

func rawGrey(w, h uint16) []byte {
	return update(0, 0, w, h, 0, bytes.Repeat([]byte{0x80, 0x80, 0x80, 0}, int(w)*int(h)))
}

// exportPeak runs dvvd's renderer on in, as `dvv record export` does, and
// answers its exit status, stderr and peak resident memory. The context is
// a guard against a render that never ends, far beyond any bounded one; no
// time is asserted.
//
// The peak is the kernel's count (wait4's maxrss), taken by a small copy of
// this test binary that starts the renderer: a process started straight
// from the test process would report at least the test process's own peak,
// as Linux carries the parent's high-water mark through the vfork and exec
// that start it.
func exportPeak(t *testing.T, in, out string) (int, string, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	peakFile := filepath.Join(t.TempDir(), "peak")
	cmd := exec.CommandContext(ctx, self, dvvdBin, "__export-mp4", in, out, "10")
	cmd.Env = append(os.Environ(), "DVV_PEAK_RSS_FILE="+peakFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the export of %s did not end (killed by the guard)", filepath.Base(in))
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(peakFile)
	if err != nil {
		t.Fatalf("no peak measured: %v (%s)", err, stderr.String())
	}
	peak, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String(), peak
}

// peakRSSOf runs argv with this process's stdin, stdout and stderr, writes
// its peak resident memory in bytes to out, and answers its exit status.
func peakRSSOf(out string, argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if err := os.WriteFile(out, []byte(strconv.FormatInt(peak, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	return cmd.ProcessState.ExitCode()
}

// TestRecordExportOfHostileFBS: recordings another program wrote to make
// an export expensive cost a bounded video and bounded memory. A change 49
// days after the first exports as a short video (the quiet stretch cut);
// one that would last past the export's cap even cut is refused with
// TOO_LARGE before anything is rendered; a storm of size changes between
// 8192x4096 and 1x1 every 20 ms is refused once its framebuffers pass the
// player's budget (before, it was still being rendered minutes later), the
// renderer's peak memory staying near three frames of the largest size.
func TestRecordExportOfHostileFBS(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "ffmpeg", "ffprobe")

	far := hostileFBSFile(t, []uint32{10, 49 * 24 * 3600 * 1000}, [][]byte{rawGrey(64, 48), rawGrey(8, 8)})
	out := filepath.Join(t.TempDir(), "far.mp4")
	code, stderr, peak := exportPeak(t, far, out)
	if code != 0 {
		t.Fatalf("export of the 49-day file: exit %d: %s", code, stderr)
	}
	probe, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out).Output()
	frames, _ := strconv.Atoi(strings.TrimSpace(string(probe)))
	if err != nil || frames < 2 || frames > 110 {
		t.Fatalf("the 49-day file made a video of %d frames (%v); want about 10 s at 10 a second", frames, err)
	}
	t.Logf("49 days away: %d frames, peak RSS %d MiB", frames, peak>>20)
	if peak > 256<<20 {
		t.Errorf("the 49-day file's export peaked at %d MiB", peak>>20)
	}

	// Quiet stretches of 11 s, enough of them that even cut to 10 s the
	// video would pass 4 hours.
	var times []uint32
	var msgs [][]byte
	for i := range 4*360 + 10 {
		times, msgs = append(times, uint32(i*11000)), append(msgs, rawGrey(4, 4))
	}
	long := hostileFBSFile(t, times, msgs)
	d := &daemon{t: t, env: cleanEnv()}
	longOut := filepath.Join(t.TempDir(), "long.mp4")
	wantExit(t, d.dvv("record", "export", long, "--mp4", "--out", longOut), wire.ExitUsage, wire.TooLarge)
	if _, err := os.Stat(longOut); !os.IsNotExist(err) {
		t.Errorf("a refused export left %s: %v", longOut, err)
	}

	times, msgs = nil, nil
	for i := range 2000 {
		w, h := uint16(8192), uint16(4096)
		if i%2 == 1 {
			w, h = 1, 1
		}
		times, msgs = append(times, uint32(20*i+20)), append(msgs, update(0, 0, w, h, -223, nil))
	}
	storm := hostileFBSFile(t, times, msgs)
	code, stderr, peak = exportPeak(t, storm, filepath.Join(t.TempDir(), "storm.mp4"))
	t.Logf("resize storm: exit %d, peak RSS %d MiB: %s", code, peak>>20, strings.TrimSpace(stderr))
	if code == 0 || !strings.Contains(stderr, "changes its screen size") {
		t.Errorf("the resize storm exported (exit %d): %s", code, stderr)
	}
	if peak > 768<<20 {
		t.Errorf("the resize storm's export peaked at %d MiB", peak>>20)
	}
}
