package vnc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

func code(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

func target(port int, password string) limb.Target {
	return limb.Target{Protocol: wire.ProtoVNC, Address: "127.0.0.1", Port: port, Password: password}
}

func TestXvncWrongPasswordIsAuthFailed(t *testing.T) {
	t.Parallel()
	v := testbed.StartXvnc(t, testbed.XvncOptions{Password: "secret12"})
	_, err := Dial(context.Background(), target(v.Port, "nope"), fb.New())
	if code(err) != wire.AuthFailed {
		t.Fatalf("got %v, want AUTH_FAILED", err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	port := testbed.FreePort(t)
	_, err := Dial(context.Background(), target(port, ""), fb.New())
	if code(err) != wire.Unreachable || !strings.Contains(err.Error(), fmt.Sprint(port)) {
		t.Fatalf("got %v, want UNREACHABLE naming the address", err)
	}
}

// Pinning changes $XDG_CONFIG_HOME, so these run one after another.
func TestVeNCryptX509VncPinning(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	v, der := testbed.StartXvncX509(t, "X509Vnc", "secret12")
	hp := v.Addr
	fp := rfb.Fingerprint(der)

	_, err := Dial(context.Background(), target(v.Port, "secret12"), fb.New())
	if code(err) != wire.HostKeyUnknown || !strings.Contains(err.Error(), fp) || !strings.Contains(err.Error(), "dvv hosts trust "+hp) {
		t.Fatalf("first contact: %v, want HOSTKEY_UNKNOWN with %s", err, fp)
	}
	if err := TrustCert(hp, fp); err != nil {
		t.Fatal(err)
	}
	d, err := Dial(context.Background(), target(v.Port, "secret12"), fb.New())
	if err != nil {
		t.Fatalf("after trust: %v", err)
	}
	d.Close()
	_, err = Dial(context.Background(), target(v.Port, "wrong"), fb.New())
	if code(err) != wire.AuthFailed {
		t.Fatalf("wrong password over TLS: %v", err)
	}

	// A different certificate on the same address is refused.
	v.Server.Kill()
	v2, der2 := testbed.StartXvncX509(t, "X509Vnc", "secret12")
	_ = v2
	if err := TrustCert(v2.Addr, fp); err != nil { // the old pin, now for the new port
		t.Fatal(err)
	}
	_, err = Dial(context.Background(), target(v2.Port, "secret12"), fb.New())
	if code(err) != wire.HostKeyChanged || !strings.Contains(err.Error(), rfb.Fingerprint(der2)) {
		t.Fatalf("changed cert: %v, want HOSTKEY_CHANGED", err)
	}
}

func TestVeNCryptX509Plain(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	// PAM checks the user against the system; no test user exists, so the
	// whole exchange runs (TLS, then Plain credentials) and PAM refuses.
	v, der := testbed.StartXvncX509(t, "X509Plain", "", "-PlainUsers", "dvvtest", "-PAMService", "tigervnc")
	if err := TrustCert(v.Addr, rfb.Fingerprint(der)); err != nil {
		t.Fatal(err)
	}
	tg := target(v.Port, "pw")
	tg.User = "dvvtest"
	_, err := Dial(context.Background(), tg, fb.New())
	if code(err) != wire.AuthFailed {
		t.Fatalf("X509Plain with an unknown user: %v, want AUTH_FAILED", err)
	}
	t.Logf("X509Plain: %v", err)
}

// TestVeNCryptX509PlainLogin logs in over X509Plain as a real local account
// (checked by PAM), and a wrong password for it is AUTH_FAILED.
func TestVeNCryptX509PlainLogin(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	user, password := testbed.PasswordUser(t)
	v, der := testbed.StartXvncX509(t, "X509Plain", "", "-PlainUsers", user, "-PAMService", "tigervnc")
	if err := TrustCert(v.Addr, rfb.Fingerprint(der)); err != nil {
		t.Fatal(err)
	}
	tg := target(v.Port, password)
	tg.User = user
	d, err := Dial(context.Background(), tg, fb.New())
	if err != nil {
		t.Fatalf("X509Plain as %s: %v", user, err)
	}
	d.Close()
	tg.Password = password + "-wrong"
	if _, err := Dial(context.Background(), tg, fb.New()); code(err) != wire.AuthFailed {
		t.Fatalf("X509Plain with a wrong password: %v, want AUTH_FAILED", err)
	}
}

func TestAnonymousTLSIsUnsupported(t *testing.T) {
	t.Parallel()
	v, _ := testbed.StartXvncX509(t, "TLSVnc", "secret12")
	_, err := Dial(context.Background(), target(v.Port, "secret12"), fb.New())
	if code(err) != wire.Unsupported || !strings.Contains(err.Error(), "X509Vnc") {
		t.Fatalf("TLSVnc only: %v, want UNSUPPORTED naming X509Vnc", err)
	}
	t.Logf("%v", err)

	// With VncAuth offered as well, the client falls back to it.
	v2, _ := testbed.StartXvncX509(t, "TLSVnc,VncAuth", "secret12")
	d, err := Dial(context.Background(), target(v2.Port, "secret12"), fb.New())
	if err != nil {
		t.Fatalf("TLSVnc,VncAuth: %v", err)
	}
	d.Close()
}

func TestQEMU(t *testing.T) {
	t.Parallel()
	q := testbed.StartQEMUVNC(t, "qemupw12", true)
	buf := fb.New()
	d, err := Dial(context.Background(), target(q.Port, "qemupw12"), buf)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	testbed.Eventually(t, 20*time.Second, "LED state and QEMU keys", func() bool {
		s := d.Signals()
		return s[wire.SigLEDState].State == wire.SignalLive && s[wire.SigKeyScancodes].State == wire.SignalLive
	})
	testbed.Eventually(t, 20*time.Second, "a full frame", func() bool { return buf.Coverage() == 1 })
	for _, r := range "Hello_World-42 (a>b)" {
		if err := d.TypeRune(r); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Dial(context.Background(), target(q.Port, "wrongpw1"), fb.New())
	if code(err) != wire.AuthFailed {
		t.Fatalf("wrong password: %v", err)
	}

	// Its WebSocket listener speaks the same RFB.
	ws := limb.Target{Protocol: wire.ProtoVNC, Address: fmt.Sprintf("ws://127.0.0.1:%d", q.WSPort), Password: "qemupw12"}
	d2, err := Dial(context.Background(), ws, fb.New())
	if err != nil {
		t.Fatalf("QEMU websocket: %v", err)
	}
	d2.Close()
}

func TestWebsockifyAndX11vncWebSocket(t *testing.T) {
	t.Parallel()
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 200})
	port := testbed.StartWebsockify(t, v.Addr)
	buf := fb.New()
	d, err := Dial(context.Background(), limb.Target{Address: fmt.Sprintf("ws://127.0.0.1:%d", port)}, buf)
	if err != nil {
		t.Fatalf("websockify: %v", err)
	}
	testbed.Eventually(t, 10*time.Second, "frame over websockify", func() bool { return buf.Coverage() == 1 })
	d.Close()

	x := testbed.StartX11vnc(t, 320, 200)
	buf2 := fb.New()
	d2, err := Dial(context.Background(), limb.Target{Address: fmt.Sprintf("ws://127.0.0.1:%d/", x.Port)}, buf2)
	if err != nil {
		t.Fatalf("x11vnc websocket: %v", err)
	}
	testbed.Eventually(t, 10*time.Second, "frame over x11vnc websocket", func() bool { return buf2.Coverage() == 1 })
	d2.Close()
}

func TestServerDeathEndsSession(t *testing.T) {
	t.Parallel()
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 200})
	d, _ := dial(t, v)
	v.Server.Kill()
	select {
	case <-d.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("session did not end after the server died")
	}
	if code(d.Err()) != wire.Unreachable {
		t.Fatalf("Err = %v, want UNREACHABLE", d.Err())
	}
	if err := d.Pointer(1, 1, 0); err == nil {
		t.Fatal("pointer after death succeeded")
	}
}

func TestWSSPinning(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 200})
	port, der := testbed.StartWebsockifyTLS(t, v.Addr)
	tg := limb.Target{Address: fmt.Sprintf("wss://127.0.0.1:%d", port)}
	_, err := Dial(context.Background(), tg, fb.New())
	if code(err) != wire.HostKeyUnknown {
		t.Fatalf("wss first contact: %v, want HOSTKEY_UNKNOWN", err)
	}
	if err := TrustCert(fmt.Sprintf("127.0.0.1:%d", port), rfb.Fingerprint(der)); err != nil {
		t.Fatal(err)
	}
	buf := fb.New()
	d, err := Dial(context.Background(), tg, buf)
	if err != nil {
		t.Fatalf("wss after trust: %v", err)
	}
	testbed.Eventually(t, 10*time.Second, "frame over wss", func() bool { return buf.Coverage() == 1 })
	d.Close()
}
