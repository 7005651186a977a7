package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/recording"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestRecordDesktop records a real Xvnc while an agent types into an
// xterm, then plays the FBS file into dvv's own RFB client: its last frame
// is the X server's own capture, and the act log holds the typing as a
// length, never the text.
func TestRecordDesktop(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	v.Run(t, "xsetroot", "-solid", "#304050")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	rec := must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: id}, Action: "start"}).Recordings[0]
	if rec.Format != "fbs" || !rec.Active {
		t.Fatalf("record start: %+v", rec)
	}
	if st, err := os.Stat(rec.Path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("recording file: %v %v", err, st)
	}
	typed := v.CatTerm(t)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	testbed.Eventually(t, 15*time.Second, "typing to pass the fence", func() bool {
		must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: intp(300), TimeoutMs: intp(5000)})
		must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.25)})
		_, err := do(t, c, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: strp("secret-ish words\n")})
		return err == nil
	})
	testbed.Eventually(t, 10*time.Second, "the typed text in the xterm's file", func() bool {
		return strings.Contains(readFile(t, typed), "secret-ish words")
	})
	v.Run(t, "xsetroot", "-solid", "#506070")
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: intp(500), TimeoutMs: intp(8000)})
	// The recorder writes on its own pace: wait until the file (read while
	// it grows; a torn last block just means "not yet") plays to the capture.
	want := v.Capture(t)
	testbed.Eventually(t, 10*time.Second, "the recording to hold the last change", func() bool {
		img, err := lastFrame(rec.Path)
		if err != nil || img.Rect.Dx() != 640 || img.Rect.Dy() != 480 {
			return false
		}
		return diffPixels(img, want, 0) == 0
	})
	rec = must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: id}, Action: "stop"}).Recordings[0]
	if rec.Active || rec.Ended != "stopped" || rec.Acts < 1 {
		t.Fatalf("record stop: %+v", rec)
	}

	img, err := lastFrame(rec.Path)
	if err != nil {
		t.Fatal(err)
	}
	gw, gh := img.Rect.Dx(), img.Rect.Dy()
	if gw != 640 || gh != 480 {
		t.Fatalf("replayed size %dx%d", gw, gh)
	}
	if n := diffPixels(img, want, 0); n != 0 {
		t.Fatalf("the recording's last frame differs from the X server's capture in %d pixels", n)
	}
	acts := readActs(t, rec.ActsPath)
	found := false
	for _, a := range acts {
		if a["op"] == "type" && a["outcome"] == "ok" && a["textLen"] == float64(len("secret-ish words\n")) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no type act with its length in %v", acts)
	}
	if b, _ := os.ReadFile(rec.ActsPath); bytes.Contains(b, []byte("secret-ish")) {
		t.Fatal("the act log holds typed text")
	}
	list := must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: id}, Action: "list"}).Recordings
	if len(list) != 1 || list[0].Path != rec.Path {
		t.Fatalf("record list: %+v", list)
	}
}

// TestRecordTerminal records a real sshd shell as asciicast; Debian's
// asciinema reads it back, and the acts are markers and log lines.
func TestRecordTerminal(t *testing.T) {
	testbed.Need(t, "asciinema", "script")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"}).LimbID
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatal("ssh limb did not connect")
	}
	rec := must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: id}}).Recordings[0]
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: id}, Text: strp("echo rec-$((6*7)); seq 1 200 | tail -1\n")})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: strp("rec-42"), TimeoutMs: intp(10000)}); !w.Wait.Settled {
		t.Fatal("the command did not run")
	}
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "idle", QuietMs: intp(300), TimeoutMs: intp(10000)})
	rec = must(t, c, wire.RecordArgs{Target: wire.Target{LimbID: id}, Action: "stop"}).Recordings[0]
	if rec.Format != "asciicast-v2" || rec.Acts < 2 {
		t.Fatalf("record stop: %+v", rec)
	}
	// asciinema opens /dev/tty: give it one with script(1).
	out, err := exec.Command("script", "-qec", "asciinema cat "+rec.Path, "/dev/null").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "rec-42") || !strings.Contains(string(out), "200") {
		t.Fatalf("asciinema cat: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(rec.Path)
	if !bytes.Contains(b, []byte(`, "m", `)) {
		t.Fatalf("no act marker in the cast:\n%s", b)
	}
	acts := readActs(t, rec.ActsPath)
	if len(acts) < 2 || acts[len(acts)-1]["op"] != "term_send" || acts[len(acts)-1]["textLen"] == nil {
		t.Fatalf("acts %v", acts)
	}
}

func readActs(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("act line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// lastFrame plays a recording file with the player the recordings page
// and export use, and returns the frame it ends on.
func lastFrame(path string) (*image.RGBA, error) {
	pl, err := recording.OpenPlayer(context.Background(), path)
	if err != nil {
		return nil, err
	}
	defer pl.Close()
	return pl.Frame(pl.DurationMs())
}
