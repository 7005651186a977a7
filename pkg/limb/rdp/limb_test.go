package rdp

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/keys"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/limb/pins"
	"github.com/dvvhq/dvv/pkg/rdp"
	"github.com/dvvhq/dvv/pkg/wire"
)

func code(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

func target(srv *testbed.RDP) limb.Target {
	return limb.Target{Protocol: wire.ProtoRDP, Address: "127.0.0.1", Port: srv.Port, User: srv.User, Password: srv.Password}
}

// TestMain keeps the tests' certificate pins in a private config directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dvv-rdp-pins")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// trusted pins srv's certificate, replacing a pin a finished test may have
// left for the same port, and returns the options to dial with.
func trusted(t *testing.T, srv *testbed.RDP) Options {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	der, err := rdp.FetchCertificate(ctx, srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := pins.Trust(srv.Addr, rdp.Fingerprint(der)); err != nil {
		t.Fatal(err)
	}
	return Options{}
}

func open(t *testing.T, o Options, tg limb.Target) (limb.Desktop, *fb.Buffer) {
	t.Helper()
	buf := fb.New()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := o.Dial(ctx, tg, buf)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d, buf
}

// Not parallel: it starts from an empty pin file of its own.
func TestCertificatePinning(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480})
	o := Options{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	_, err := o.Dial(ctx, target(srv), fb.New())
	if code(err) != wire.HostKeyUnknown || !strings.Contains(err.Error(), "SHA256 ") ||
		!strings.Contains(err.Error(), fmt.Sprintf("dvv hosts trust 127.0.0.1:%d", srv.Port)) {
		t.Fatalf("first Dial: %v, want HOSTKEY_UNKNOWN with fingerprint and trust command", err)
	}
	fp, _, err := TrustCertChecked(ctx, "127.0.0.1", srv.Port, "", true)
	if err != nil || len(fp) != 95 {
		t.Fatalf("TrustCertChecked = %q, %v", fp, err)
	}
	d, err := o.Dial(ctx, target(srv), fb.New())
	if err != nil {
		t.Fatalf("Dial after trusting: %v", err)
	}
	d.Close()

	// Another certificate pinned for the same server: refused as changed.
	bogus := strings.Repeat("AB:", 31) + "AB"
	if err := pins.Replace(srv.Addr, bogus); err != nil {
		t.Fatal(err)
	}
	_, err = o.Dial(ctx, target(srv), fb.New())
	if code(err) != wire.HostKeyChanged || !strings.Contains(err.Error(), fp) || !strings.Contains(err.Error(), bogus) {
		t.Fatalf("Dial with a changed certificate: %v, want HOSTKEY_CHANGED naming both fingerprints", err)
	}
	if _, _, err := TrustCertChecked(ctx, "127.0.0.1", srv.Port, "", true); code(err) != wire.HostKeyChanged {
		t.Fatalf("TrustCertChecked over a different pin: %v, want HOSTKEY_CHANGED", err)
	}
}

func TestWrongPasswordIsAuthFailed(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480, NLA: true})
	o := trusted(t, srv)
	tg := target(srv)
	tg.Password = "not-the-password"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := o.Dial(ctx, tg, fb.New())
	if code(err) != wire.AuthFailed {
		t.Fatalf("Dial with a wrong password: %v, want AUTH_FAILED", err)
	}
	if strings.Contains(err.Error(), tg.Password) {
		t.Fatal("the error message carries the password")
	}
	tg.Password = ""
	_, err = o.Dial(ctx, tg, fb.New())
	if code(err) != wire.AuthFailed {
		t.Fatalf("Dial without a password to an NLA server: %v, want AUTH_FAILED", err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	port := testbed.FreePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Options{}.Dial(ctx, limb.Target{Address: "127.0.0.1", Port: port}, fb.New())
	if code(err) != wire.Unreachable {
		t.Fatalf("Dial to a closed port: %v, want UNREACHABLE", err)
	}
}

func TestShadowDesktop(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600, NLA: true})
	o := trusted(t, srv)
	d, buf := open(t, o, target(srv))
	if w, h := buf.Size(); w != 800 || h != 600 {
		t.Fatalf("framebuffer %dx%d, want the server's 800x600", w, h)
	}
	sig := d.Signals()
	if s := sig[wire.SigWindowStructure]; s.State != wire.SignalAbsent || s.Reason == "" {
		t.Errorf("window_structure = %+v, want absent with a reason", s)
	}
	// NLA was asked of the server, so CredSSP (HYBRID or HYBRID_EX) it is.
	if s := sig[wire.SigSession]; s.State != wire.SignalLive || !strings.HasPrefix(s.Value["security"].(string), "HYBRID") || s.Value["colorDepth"] == 0 {
		t.Errorf("session = %+v, want HYBRID security and a colour depth", s)
	}
	// FreeRDP's shadow server opens no clipboard channel.
	if s := sig[wire.SigClipboard]; s.State == wire.SignalLive || s.Reason == "" {
		t.Errorf("clipboard = %+v, want absent or unknown with a reason", s)
	}
	if s := sig[wire.SigLEDState]; s.State == "" || (s.State == wire.SignalUnknown && s.Reason == "") {
		t.Errorf("led_state = %+v", s)
	}
	if _, err := d.SetClipboard("x"); code(err) != wire.NotImplemented || !strings.Contains(err.Error(), "cliprdr") {
		t.Errorf("SetClipboard without a clipboard channel: %v, want NOT_IMPLEMENTED naming cliprdr", err)
	}

	file := srv.CatTerm(t)
	// A click lands where X says the pointer is.
	if err := d.Pointer(200, 150, limb.ButtonLeft); err != nil {
		t.Fatal(err)
	}
	if err := d.Pointer(200, 150, 0); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 5*time.Second, "pointer at 200,150", func() bool {
		x, y := srv.MouseLocation(t)
		return x == 200 && y == 150
	})
	// The shadow server takes no Unicode input: text goes as US scancodes.
	text := "Hello_World-42 (a>b) ~|\"?"
	for _, r := range text {
		if err := d.TypeRune(r); err != nil {
			t.Fatalf("TypeRune(%q): %v", r, err)
		}
	}
	// A chord through Key: shift+a gives "A".
	for _, k := range []struct {
		sym  uint32
		down bool
	}{{keys.XK_Shift_L, true}, {'a', true}, {'a', false}, {keys.XK_Shift_L, false}} {
		if err := d.Key(k.sym, k.down); err != nil {
			t.Fatal(err)
		}
	}
	want := text + "A"
	testbed.Eventually(t, 10*time.Second, "typed text in the xterm", func() bool {
		b, _ := os.ReadFile(file)
		return string(b) == want
	})
	if err := d.Key(0x12345678, true); code(err) != wire.UnknownKey {
		t.Errorf("Key(unknown keysym): %v, want UNKNOWN_KEY", err)
	}
}

func TestSlotsAreSeparateConnections(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480})
	o := trusted(t, srv)
	tg := target(srv)
	a, bufA := open(t, o, tg)
	tg.Slot = 1
	b, bufB := open(t, o, tg)
	srv.Run(t, "xsetroot", "-solid", "#804020")
	for _, buf := range []*fb.Buffer{bufA, bufB} {
		testbed.Eventually(t, 15*time.Second, "full frame on both slots", func() bool { return buf.Coverage() >= 1 })
	}
	b.Close()
	<-b.Done()
	// Slot 0 is still live once slot 1 is gone: it mirrors a change made
	// after the close.
	srv.Run(t, "xsetroot", "-solid", "#208040")
	testbed.Eventually(t, 15*time.Second, "slot 0 to show the new colour", func() bool {
		select {
		case <-a.Done():
			t.Fatalf("closing slot 1 ended slot 0: %v", a.Err())
		default:
		}
		img, _ := bufA.Snapshot(image.Rect(600, 20, 601, 21))
		return img != nil && img.Pix[0] == 0x20 && img.Pix[1] == 0x80 && img.Pix[2] == 0x40
	})
}

func TestServerKilledMidSession(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480})
	o := trusted(t, srv)
	d, _ := open(t, o, target(srv))
	srv.Server.Kill()
	select {
	case <-d.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("limb did not notice the server dying")
	}
	if c := code(d.Err()); c != wire.Unreachable {
		t.Fatalf("Err() = %v, want UNREACHABLE", d.Err())
	}
	if err := d.Pointer(1, 1, 0); code(err) == "" {
		t.Fatalf("Pointer after the end: %v, want a coded error", err)
	}
}

func TestXrdpDesktop(t *testing.T) {
	srv := testbed.StartXrdp(t, testbed.XrdpOptions{})
	o := trusted(t, srv)
	d, buf := open(t, o, target(srv))
	srv.WaitDisplay(t)
	file := srv.CatTerm(t)
	d.Pointer(100, 100, 0)
	if !d.(*desktop).c.UnicodeInput() {
		t.Fatal("xrdp advertises Unicode input, but the session does not use it")
	}
	// Unicode events. xrdp 0.9 turns them back into keys through its own
	// keymap and drops characters that map has no key for (ü, —, ✓), so
	// only what a US keyboard can type is checked here (docs/rdp.md).
	text := "Hello_World-42 (a>b) ~|\"?{}"
	for _, r := range text {
		if err := d.TypeRune(r); err != nil {
			t.Fatalf("TypeRune(%q): %v", r, err)
		}
	}
	var got []byte
	testbed.Eventually(t, 10*time.Second, "typed text in the xterm", func() bool {
		got, _ = os.ReadFile(file)
		return string(got) == text
	})
	w, h := buf.Size()
	img, _ := buf.Snapshot(image.Rect(0, 0, w, h))
	if img.Bounds().Dx() == 0 {
		t.Fatal("empty framebuffer")
	}

	// Clipboard through cliprdr (xrdp's chansrv bridges it to X).
	testbed.Need(t, "xclip")
	testbed.Eventually(t, 10*time.Second, "clipboard channel ready", func() bool {
		return d.Signals()[wire.SigClipboard].State == wire.SignalLive
	})
	sent := "clip: Grüße ✓ 42\nsecond line"
	// The X clipboard below is the ground truth. The server's acknowledgement
	// may come later than the 5 s dvv waits for on a starved machine; then
	// the answer must say so rather than claim it.
	if info, err := d.SetClipboard(sent); err != nil || info.Via == "" || (!info.Confirmed && info.Unconfirmed == "") {
		t.Fatalf("SetClipboard: %+v %v", info, err)
	} else if !info.Confirmed {
		t.Logf("SetClipboard not acknowledged in time: %s", info.Unconfirmed)
	}
	testbed.Eventually(t, 30*time.Second, "our text on the X clipboard", func() bool {
		out, err := srv.Command("timeout", "5", "xclip", "-o", "-selection", "clipboard").Output() // xclip waits for the owner forever
		return err == nil && string(out) == sent
	})
	// Text outside the BMP: xrdp's chansrv cannot carry it.
	party := "party 🎉 time ✓"
	info, err := d.SetClipboard(party)
	if err != nil {
		t.Fatalf("SetClipboard(%q): %v", party, err)
	}
	if len(info.Dropped) != 1 || info.Dropped[0] != "🎉" {
		t.Fatalf("SetClipboard(%q) answered %+v: the emoji does not arrive and must be listed", party, info)
	}
	testbed.Eventually(t, 30*time.Second, "the rest of the text on the X clipboard", func() bool {
		out, err := srv.Command("timeout", "5", "xclip", "-o", "-selection", "clipboard").Output()
		return err == nil && string(out) == "party  time ✓"
	})
	copied := "copied remotely: ünïcode ✓"
	srv.Background(t, "sh", "-c", "printf '%s' '"+copied+"' | xclip -quiet -selection clipboard -i")
	testbed.Eventually(t, 10*time.Second, "the remote copy in Clipboard()", func() bool {
		text, _, ok := d.Clipboard()
		return ok && text == copied
	})
}

// Wheel bits become wheel events: X sees buttons 4 (up) and 5 (down) in a
// window under the pointer.
func TestWheel(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480})
	testbed.Need(t, "xev")
	o := trusted(t, srv)
	d, _ := open(t, o, target(srv))
	xev := srv.Background(t, "xev", "-geometry", "200x200+200+150", "-event", "button")
	testbed.Eventually(t, 10*time.Second, "xev window", func() bool {
		return srv.Command("xdotool", "search", "--name", "Event Tester").Run() == nil
	})
	seen := func(s string) bool {
		b, _ := os.ReadFile(xev.Log)
		return strings.Contains(string(b), s)
	}
	for _, step := range []struct {
		bit  limb.Buttons
		want string
	}{{limb.WheelUp, "button 4,"}, {limb.WheelDown, "button 5,"}} {
		testbed.Eventually(t, 10*time.Second, step.want, func() bool {
			if err := d.Pointer(300, 250, step.bit); err != nil {
				t.Fatal(err)
			}
			if err := d.Pointer(300, 250, 0); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
			return seen(step.want)
		})
	}
	if !d.(*desktop).c.HorizontalWheel() {
		if err := d.Pointer(300, 250, limb.WheelLeft); code(err) != wire.NotImplemented {
			t.Errorf("horizontal wheel on a server without it: %v, want NOT_IMPLEMENTED", err)
		}
	}
}

// A server that speaks only standard RDP security (RC4) is refused as
// UNSUPPORTED, with what to change on the server.
func TestStandardSecurityOnlyIsUnsupported(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480, Extra: []string{"/sec:rdp"}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Options{}.Dial(ctx, target(srv), fb.New())
	if code(err) != wire.Unsupported || !strings.Contains(err.Error(), "TLS") {
		t.Fatalf("Dial: %v, want UNSUPPORTED naming TLS", err)
	}
	t.Log(err)
}
