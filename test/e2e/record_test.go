package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/recording"
	"github.com/dvvhq/dvv/pkg/rfb"
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
	rec := must(t, c, &wire.Request{Op: "record", LimbID: id, Action: "start"}).Recordings[0]
	if rec.Format != "fbs" || !rec.Active {
		t.Fatalf("record start: %+v", rec)
	}
	if st, err := os.Stat(rec.Path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("recording file: %v %v", err, st)
	}
	typed := v.CatTerm(t)
	must(t, c, &wire.Request{Op: "control", LimbID: id, Action: "acquire"})
	testbed.Eventually(t, 15*time.Second, "typing to pass the fence", func() bool {
		must(t, c, &wire.Request{Op: "wait", LimbID: id, Until: "screen-stable", QuietMs: intp(300), TimeoutMs: intp(5000)})
		must(t, c, &wire.Request{Op: "screen", LimbID: id, Scale: floatp(0.25)})
		_, err := do(t, c, &wire.Request{Op: "type", LimbID: id, Text: strp("secret-ish words\n")})
		return err == nil
	})
	testbed.Eventually(t, 10*time.Second, "the typed text in the xterm's file", func() bool {
		return strings.Contains(readFile(t, typed), "secret-ish words")
	})
	v.Run(t, "xsetroot", "-solid", "#506070")
	must(t, c, &wire.Request{Op: "wait", LimbID: id, Until: "screen-stable", QuietMs: intp(500), TimeoutMs: intp(8000)})
	time.Sleep(300 * time.Millisecond) // three recording paces: the last change is written
	want := v.Capture(t)
	rec = must(t, c, &wire.Request{Op: "record", LimbID: id, Action: "stop"}).Recordings[0]
	if rec.Active || rec.Ended != "stopped" || rec.Acts < 1 {
		t.Fatalf("record stop: %+v", rec)
	}

	got := replayFBS(t, rec.Path)
	gw, gh := got.Size()
	img, _ := got.Snapshot(image.Rect(0, 0, gw, gh))
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
	list := must(t, c, &wire.Request{Op: "record", LimbID: id, Action: "list"}).Recordings
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
	id := must(t, c, &wire.Request{Op: "open", Address: s.Host, Port: &s.Port, Protocol: "ssh"}).LimbID
	if w := must(t, c, &wire.Request{Op: "wait", LimbID: id, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatal("ssh limb did not connect")
	}
	rec := must(t, c, &wire.Request{Op: "record", LimbID: id}).Recordings[0]
	must(t, c, &wire.Request{Op: "control", LimbID: id, Action: "acquire"})
	must(t, c, &wire.Request{Op: "term_send", LimbID: id, Text: strp("echo rec-$((6*7)); seq 1 200 | tail -1\n")})
	if w := must(t, c, &wire.Request{Op: "wait", LimbID: id, Until: "text", Text: strp("rec-42"), TimeoutMs: intp(10000)}); !w.Wait.Settled {
		t.Fatal("the command did not run")
	}
	must(t, c, &wire.Request{Op: "wait", LimbID: id, Until: "idle", QuietMs: intp(300), TimeoutMs: intp(10000)})
	rec = must(t, c, &wire.Request{Op: "record", LimbID: id, Action: "stop"}).Recordings[0]
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

// replayFBS plays a recording's server bytes into pkg/rfb's client (what
// its own messages say goes nowhere) and returns its framebuffer.
func replayFBS(t *testing.T, path string) *fb.Buffer {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stream bytes.Buffer
	if err := recording.ReadFBS(f, func(_ uint32, b []byte) error { stream.Write(b); return nil }); err != nil {
		t.Fatal(err)
	}
	srv, cli := net.Pipe()
	go func() {
		b := make([]byte, 4096)
		for {
			if _, err := srv.Read(b); err != nil {
				return
			}
		}
	}()
	fed := make(chan struct{})
	go func() { srv.Write(stream.Bytes()); close(fed) }()
	out := fb.New()
	rc, err := rfb.NewClient(context.Background(), cli, &rfb.Config{Framebuffer: out, NoContinuousUpdates: true})
	if err != nil {
		t.Fatal(err)
	}
	go rc.Run()
	defer rc.Close()
	select {
	case <-fed:
	case <-time.After(20 * time.Second):
		t.Fatal("the client did not read the whole recording")
	}
	last := out.Seq()
	for i := 0; i < 50; i++ { // the last write was taken; let its decode land
		time.Sleep(100 * time.Millisecond)
		if s := out.Seq(); s == last {
			break
		} else {
			last = s
		}
	}
	return out
}

// TestSavedHostAlwaysRecords: a saved host marked record has every session
// recorded from the moment it connects.
func TestSavedHostAlwaysRecords(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	hs, err := hosts.Open(filepath.Join(t.TempDir(), "hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs}, io.Discard)
	c := dial(t, d, "agent")
	must(t, c, &wire.Request{Op: "host_add", Host: &wire.HostSpec{Name: "box", Protocol: "ssh", Address: s.Host, Port: s.Port, User: s.User, Record: true}})
	id := must(t, c, &wire.Request{Op: "open", HostID: "box"}).LimbID
	must(t, c, &wire.Request{Op: "wait", LimbID: id, Until: "connected", TimeoutMs: intp(20000)})
	testbed.Eventually(t, 10*time.Second, "the saved host's recording to start", func() bool {
		list := must(t, c, &wire.Request{Op: "record", LimbID: id, Action: "list"}).Recordings
		return len(list) == 1 && list[0].Active && list[0].Format == "asciicast-v2"
	})
}
