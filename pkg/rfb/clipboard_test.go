package rfb

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

const unicodeText = "Γειά σου κόσμε\n你好，世界 🙂 é"

type clipSink struct {
	mu   sync.Mutex
	text string
	utf8 bool
	n    int
}

func (s *clipSink) on(text string, utf8 bool) {
	s.mu.Lock()
	s.text, s.utf8 = text, utf8
	s.n++
	s.mu.Unlock()
}

func (s *clipSink) get() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text, s.utf8
}

func xclipOut(t *testing.T, d *testbed.Display) string {
	// xclip waits for the selection owner forever; a stuck owner must not hang the test.
	cmd := d.Command("timeout", "5", "xclip", "-selection", "clipboard", "-o")
	out, err := cmd.Output()
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(out)
}

// xclipIn owns the display's CLIPBOARD and PRIMARY selections with text
// until the test ends (x11vnc follows PRIMARY, Xvnc both).
func xclipIn(t *testing.T, d *testbed.Display, text string) {
	for _, sel := range []string{"clipboard", "primary"} {
		cmd := d.Command("xclip", "-selection", sel, "-i", "-quiet")
		cmd.Stdin = strings.NewReader(text)
		testbed.Start(t, "xclip-"+sel, cmd)
	}
}

// cutBuffer reads CUT_BUFFER0, where x11vnc puts the text a client sends.
func cutBuffer(t *testing.T, d *testbed.Display) string {
	out, err := d.Command("xprop", "-root", "CUT_BUFFER0").Output()
	if err != nil {
		return "<" + err.Error() + ">"
	}
	_, v, ok := strings.Cut(strings.TrimSpace(string(out)), " = ")
	if !ok {
		return ""
	}
	// xprop prints a quoted C string with octal escapes for bytes >= 0x80.
	v = strings.Trim(v, `"`)
	var b []byte
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+3 < len(v) && v[i+1] >= '0' && v[i+1] <= '3' {
			b = append(b, (v[i+1]-'0')<<6|(v[i+2]-'0')<<3|(v[i+3]-'0'))
			i += 3
			continue
		}
		if v[i] == '\\' && i+1 < len(v) {
			i++
			if v[i] == 'n' {
				b = append(b, '\n')
				continue
			}
		}
		b = append(b, v[i])
	}
	return latin1ToString(b)
}

func clipboardRoundTrip(t *testing.T, v *testbed.VNC, cfg *Config, wantUTF8 bool) {
	clipboardRoundTripWith(t, v, cfg, wantUTF8, xclipOut)
}

func clipboardRoundTripWith(t *testing.T, v *testbed.VNC, cfg *Config, wantUTF8 bool, remoteText func(*testing.T, *testbed.Display) string) {
	sink := &clipSink{}
	cfg.OnCutText = sink.on
	cfg.Shared = true
	c, _ := connect(t, v.Addr, cfg)
	testbed.Eventually(t, 10*time.Second, "first update", func() bool { return c.Capabilities().Updates > 0 })

	dropped, viaUTF8, err := c.CutText(unicodeText)
	if err != nil {
		t.Fatal(err)
	}
	if viaUTF8 != wantUTF8 {
		t.Fatalf("viaUTF8 = %v, want %v", viaUTF8, wantUTF8)
	}
	want := unicodeText
	if !wantUTF8 {
		// Latin-1 carries only é and the newline; the rest is reported.
		want = ""
		for _, r := range unicodeText {
			if r <= 0xff {
				want += string(r)
			}
		}
		if len(dropped) == 0 || !slices.Contains(dropped, "🙂") || !slices.Contains(dropped, "世") {
			t.Fatalf("dropped %q: must list every character Latin-1 cannot carry", dropped)
		}
	} else if len(dropped) != 0 {
		t.Fatalf("dropped %q over UTF-8", dropped)
	}
	var got string
	testbed.Eventually(t, 10*time.Second, "text on the remote clipboard", func() bool {
		got = remoteText(t, v.Display)
		return got == want
	})

	if v.Display.Num >= 0 && strings.Contains(v.Server.Cmd.Path, "x11vnc") {
		// x11vnc 0.9.16 did not forward selections owned by xclip here
		// (neither CLIPBOARD nor PRIMARY); only our direction is checked.
		return
	}
	// And the other way: something copied on the display arrives.
	remote := "copied remotely: "
	if wantUTF8 {
		remote += "Ελληνικά 中文 🙂"
	} else {
		remote += "café"
	}
	xclipIn(t, v.Display, remote)
	testbed.Eventually(t, 10*time.Second, "remote clipboard text via OnCutText", func() bool {
		text, _ := sink.get()
		return text == remote
	})
	if _, utf8 := sink.get(); utf8 != wantUTF8 {
		t.Errorf("arrived with utf8=%v", utf8)
	}
}

func TestClipboardXvncExtended(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xclip")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 200})
	clipboardRoundTrip(t, v, &Config{}, true)
}

// x11vnc stores what a client sends in CUT_BUFFER0 (not a selection), and
// its extended clipboard does not reach X, so it is driven with Latin-1.
func TestClipboardX11vnc(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xclip", "x11vnc", "xprop")
	v := testbed.StartX11vnc(t, 320, 200)
	clipboardRoundTripWith(t, v, &Config{NoExtendedClipboard: true}, false, cutBuffer)
}

func TestClipboardLatin1(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xclip")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 200})
	clipboardRoundTrip(t, v, &Config{NoExtendedClipboard: true}, false)
}

// TestClipboardX11vncExtendedClipboard: x11vnc 0.9.16 on libvncserver 0.9.14
// advertises the extended clipboard but takes no UTF-8 text. A set must
// neither drop the connection nor claim what did not arrive: the Latin-1
// text reaches X (CUT_BUFFER0) and the rest is reported as dropped.
func TestClipboardX11vncExtendedClipboard(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xclip", "x11vnc", "xprop")
	v := testbed.StartX11vnc(t, 320, 200)
	c, done := connect(t, v.Addr, &Config{})
	testbed.Eventually(t, 10*time.Second, "extended clipboard caps", func() bool { return c.Capabilities().ExtendedClipboard })
	clipboardRoundTripWith(t, v, &Config{}, false, cutBuffer)
	dropped, viaUTF8, err := c.CutText("second text: ü")
	if err != nil || viaUTF8 || len(dropped) != 0 {
		t.Fatalf("CutText: dropped %q utf8 %v err %v", dropped, viaUTF8, err)
	}
	testbed.Eventually(t, 10*time.Second, "second text in CUT_BUFFER0", func() bool { return cutBuffer(t, v.Display) == "second text: ü" })
	select {
	case err := <-done:
		t.Fatalf("x11vnc dropped the client: %v", err)
	default:
	}
	if b, _ := os.ReadFile(v.Server.Log); strings.Contains(string(b), "inflation error") {
		t.Fatalf("x11vnc could not read the extended clipboard data:\n%s", b)
	}
}

// TestClipboardRightAfterConnect: a set sent at once on fresh connections
// still takes TigerVNC's UTF-8 route (its caps arrive after SetEncodings).
func TestClipboardRightAfterConnect(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xclip")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 200})
	for i := 0; i < 10; i++ {
		c, err := Dial(context.Background(), v.Addr, &Config{Framebuffer: fb.New(), Shared: true})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Run() }()
		text := fmt.Sprintf("Γειά %d 你好 🙂", i)
		dropped, viaUTF8, err := c.CutText(text)
		if err != nil || !viaUTF8 || len(dropped) > 0 {
			t.Fatalf("fresh connection %d: utf8 %v dropped %q err %v", i, viaUTF8, dropped, err)
		}
		testbed.Eventually(t, 10*time.Second, "text on the X clipboard", func() bool { return xclipOut(t, v.Display) == text })
		c.Close()
		<-done
	}
}
