package vnc

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

func TestMain(m *testing.M) {
	// xterm writes typed characters in the locale's encoding: make it UTF-8.
	os.Setenv("LC_ALL", "C.UTF-8")
	os.Exit(m.Run())
}

func dial(t *testing.T, v *testbed.VNC) (limb.Desktop, *fb.Buffer) {
	t.Helper()
	buf := fb.New()
	d, err := Dial(context.Background(), limb.Target{Protocol: wire.ProtoVNC, Address: "127.0.0.1", Port: v.Port, Password: v.Password}, buf)
	if err != nil {
		t.Fatalf("dial %s: %v", v.Addr, err)
	}
	t.Cleanup(func() { d.Close() })
	testbed.Eventually(t, 10*time.Second, "first frame", func() bool { return buf.Coverage() == 1 })
	return d, buf
}

// typed is every printable ASCII character, some Latin-1, a tab and a
// newline.
const typed = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\té ß © ñ Ä\n"

func typeAndCheck(t *testing.T, v *testbed.VNC, d limb.Desktop) {
	t.Helper()
	out := v.CatTerm(t)
	for _, r := range typed {
		if err := d.TypeRune(r); err != nil {
			t.Fatalf("TypeRune(%q): %v", r, err)
		}
	}
	// A terminal in raw mode reads Return as \r, with icrnl as \n.
	want := typed
	var got string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(out)
		if got = strings.ReplaceAll(string(b), "\r", "\n"); got == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("typed text differs:\n got %q\nwant %q", got, want)
}

func TestXvncTypePointerResize(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "Xvnc", "xterm", "xdotool", "xrandr")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 800, Height: 600})
	d, buf := dial(t, v)
	typeAndCheck(t, v, d)

	if err := d.Pointer(321, 123, 0); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 5*time.Second, "pointer at 321,123", func() bool {
		x, y := v.MouseLocation(t)
		return x == 321 && y == 123
	})

	before := buf.Resizes()
	v.Resize(t, 1024, 768)
	testbed.Eventually(t, 10*time.Second, "resize to 1024x768", func() bool {
		w, h := buf.Size()
		return w == 1024 && h == 768 && buf.Resizes() > before
	})
	sig := d.Signals()
	for name, want := range map[string]string{
		wire.SigDesktopResize: wire.SignalLive, wire.SigWindowStructure: wire.SignalAbsent,
		wire.SigClipboard: wire.SignalLive, wire.SigBell: wire.SignalLive,
	} {
		if sig[name].State != want {
			t.Errorf("signal %s = %+v, want %s", name, sig[name], want)
		}
	}
	// The session signal says what was negotiated; the server's own log
	// names the security type it granted and the encoding it sent.
	sess := sig[wire.SigSession]
	encs, _ := sess.Value["encodings"].(map[string]uint64)
	if sess.State != wire.SignalLive || sess.Value["rfb"] != "3.8" || encs["Tight"] == 0 {
		t.Errorf("session signal %+v", sess)
	}
	// Xvnc logs the encodings it used when the connection closes.
	d.Close()
	testbed.Eventually(t, 10*time.Second, "Xvnc's log to name the security type and Tight", func() bool {
		b, _ := os.ReadFile(v.Server.Log)
		return strings.Contains(string(b), "security type "+sess.Value["security"].(string)+"(") && strings.Contains(string(b), "Tight:")
	})
	t.Logf("signals: %+v", sig)
}

func TestX11vncTypeAndPointer(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "x11vnc", "xterm", "xdotool")
	v := testbed.StartX11vnc(t, 800, 600)
	d, _ := dial(t, v)
	typeAndCheck(t, v, d)
	if err := d.Pointer(77, 55, 0); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 5*time.Second, "pointer at 77,55", func() bool {
		x, y := v.MouseLocation(t)
		return x == 77 && y == 55
	})
	t.Logf("signals: %+v", d.Signals())
}
