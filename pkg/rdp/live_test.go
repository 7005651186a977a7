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
)

func dialTest(t *testing.T, srv *testbed.RDP, mod func(*Config)) (*Client, *fb.Buffer) {
	t.Helper()
	buf := fb.New()
	cfg := Config{Addr: srv.Addr, User: srv.User, Password: srv.Password, Framebuffer: buf, Logf: t.Logf}
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, cfg)
	if err != nil {
		t.Fatalf("Dial %s: %v", srv.Addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c, buf
}

// frameDiff counts pixels whose channels differ from the ground truth by
// more than tol (tol 8 absorbs 5/6/5-bit quantisation of 16 bpp sessions).
func frameDiff(buf *fb.Buffer, truth *image.RGBA, tol int) (bad int, first string) {
	w, h := buf.Size()
	img, _ := buf.Snapshot(image.Rect(0, 0, w, h))
	if truth.Bounds().Dx() != w || truth.Bounds().Dy() != h {
		return w * h, fmt.Sprintf("size %dx%d vs truth %v", w, h, truth.Bounds())
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a := img.Pix[y*img.Stride+4*x:]
			b := truth.Pix[y*truth.Stride+4*x:]
			if a[3] != 0xff {
				if bad == 0 {
					first = fmt.Sprintf("(%d,%d) alpha %d: the framebuffer must stay opaque", x, y, a[3])
				}
				bad++
				continue
			}
			for c := 0; c < 3; c++ {
				d := int(a[c]) - int(b[c])
				if d < -tol || d > tol {
					if bad == 0 {
						first = fmt.Sprintf("(%d,%d) got %v want %v", x, y, a[:3], b[:3])
					}
					bad++
					break
				}
			}
		}
	}
	return bad, first
}

// waitMatch waits until the framebuffer equals the display's capture.
func waitMatch(t *testing.T, srv *testbed.RDP, buf *fb.Buffer, tol int) {
	t.Helper()
	var bad int
	var first string
	deadline := time.Now().Add(20 * time.Second)
	for {
		if buf.Coverage() >= 1 {
			bad, first = frameDiff(buf, srv.Capture(t), tol)
			if bad == 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("framebuffer differs from the X display in %d pixels (coverage %.3f); first %s", bad, buf.Coverage(), first)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestShadowPixelsMatchDisplay(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600})
	_, buf := dialTest(t, srv, nil)
	w, h := buf.Size()
	if w != 800 || h != 600 {
		t.Fatalf("framebuffer %dx%d, want the server's 800x600", w, h)
	}
	srv.Run(t, "xsetroot", "-solid", "#3070b0")
	srv.Background(t, "xterm", "-geometry", "60x10+40+30", "-bg", "white", "-fg", "black", "-e", "sh", "-c", "echo hello from rdp; seq 1 5; sleep 600")
	waitMatch(t, srv, buf, 0)
}

func TestShadowNLA(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480, NLA: true})
	c, buf := dialTest(t, srv, nil)
	if c.protocol != ProtocolHybrid {
		t.Fatalf("selected protocol %d, want HYBRID", c.protocol)
	}
	srv.Run(t, "xsetroot", "-solid", "#20a040")
	waitMatch(t, srv, buf, 0)
}

// A DOMAIN\user name authenticates against a SAM entry with that domain.
func TestShadowNLADomain(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480, NLA: true,
		User: "carol", Password: "Pa55-w0rd!", Domain: "LAB"})
	dialTest(t, srv, func(c *Config) { c.User = `LAB\carol` })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Dial(ctx, Config{Addr: srv.Addr, User: `OTHER\carol`, Password: srv.Password, Framebuffer: fb.New()})
	var ae *AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("another domain: %v, want *AuthError", err)
	}
}

func TestShadowWrongPassword(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480, NLA: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Dial(ctx, Config{Addr: srv.Addr, User: srv.User, Password: "wrong", Framebuffer: fb.New()})
	var ae *AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("Dial with a wrong password: %v (%T), want *AuthError", err, err)
	}
}

func TestShadowPointerAndTyping(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600})
	c, _ := dialTest(t, srv, nil)
	file := srv.CatTerm(t)
	for _, p := range []image.Point{{300, 200}, {10, 20}, {555, 444}} {
		if err := c.Pointer(p.X, p.Y, 0, 0); err != nil {
			t.Fatal(err)
		}
		testbed.Eventually(t, 5*time.Second, fmt.Sprintf("pointer at %v", p), func() bool {
			x, y := srv.MouseLocation(t)
			return x == p.X && y == p.Y
		})
	}
	// Focus the xterm (top left) and type.
	if err := c.Pointer(100, 100, 0, 0); err != nil {
		t.Fatal(err)
	}
	text := "Hello_World-42 (a>b)"
	if c.UnicodeInput() {
		for _, r := range text {
			if err := c.TypeUnicode(r); err != nil {
				t.Fatal(err)
			}
		}
	} else {
		t.Log("server takes no Unicode input; typing with scancodes")
		typeScancodes(t, c, text)
	}
	testbed.Eventually(t, 10*time.Second, "typed text in the xterm", func() bool {
		b, _ := os.ReadFile(file)
		return string(b) == text
	})
}

func typeScancodes(t *testing.T, c *Client, s string) {
	t.Helper()
	for _, r := range s {
		sym, _ := keys.RuneKeysym(r)
		code, shift, ok := keys.Scancode(sym)
		if !ok {
			t.Fatalf("no scancode for %q", r)
		}
		if shift {
			c.Scancode(0x2A, true)
		}
		c.Scancode(code, true)
		c.Scancode(code, false)
		if shift {
			c.Scancode(0x2A, false)
		}
	}
}

func TestShadowKilledMidSession(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480})
	c, _ := dialTest(t, srv, nil)
	srv.Server.Kill()
	select {
	case <-c.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("session did not end after the server died")
	}
	var ue *UnreachableError
	if !errors.As(c.Err(), &ue) {
		t.Fatalf("Err() = %v (%T), want *UnreachableError", c.Err(), c.Err())
	}
	if err := c.Pointer(1, 1, 0, 0); err == nil {
		t.Fatal("input after the session ended succeeded")
	}
}

func TestUnknownCertificate(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480})
	var seen string
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Dial(ctx, Config{Addr: srv.Addr, Framebuffer: fb.New(), VerifyCert: func(hp string, der []byte, fp string) error {
		seen = fp
		return &CertError{HostPort: hp, Fingerprint: fp}
	}})
	var ce *CertError
	if !errors.As(err, &ce) || ce.Changed || ce.Fingerprint != seen || !strings.Contains(seen, ":") {
		t.Fatalf("Dial = %v, want an unknown-certificate CertError with fingerprint %q", err, seen)
	}
}

// At 16 bpp the server sends interleaved RLE in 5/6/5 bits per channel, so
// pixels are compared with a per-channel tolerance of 8 (the largest
// rounding error of a 5-bit channel widened to 8 bits is 7).
func TestShadowPixels16bpp(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 640, Height: 480})
	_, buf := dialTest(t, srv, func(c *Config) { c.ColorDepth = 16 })
	srv.Run(t, "xsetroot", "-solid", "#3a7bd5")
	srv.Background(t, "xterm", "-geometry", "50x8+20+20", "-bg", "#fafafa", "-fg", "#101010", "-e", "sh", "-c", "seq 1 6; sleep 600")
	waitMatch(t, srv, buf, 8)
}

// A full-HD screen: large updates (fragmented fast-path output) at 32 and
// 16 bpp on two sessions at once.
func TestShadowFullHD(t *testing.T) {
	t.Parallel()
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 1920, Height: 1080})
	c32, buf := dialTest(t, srv, nil)
	depth16 := func(c *Config) { c.ColorDepth = 16 }
	c16, buf16 := dialTest(t, srv, depth16)
	srv.Background(t, "xterm", "-geometry", "120x40+100+100", "-e", "sh", "-c", "ls -la /usr/bin | head -100; sleep 600")
	srv.Run(t, "xsetroot", "-solid", "#123456")
	waitMatchOrRedial(t, srv, c32, buf, nil, 0)
	waitMatchOrRedial(t, srv, c16, buf16, depth16, 8)
}

// waitMatchOrRedial is waitMatch for a server that may drop a session by
// its own fault: under heavy load FreeRDP's shadow server ends a session
// on an EAGAIN from its own socket ("BIO_read returned a system error 11").
// A session the server ended is dialled once more; one that is still up
// must match.
func waitMatchOrRedial(t *testing.T, srv *testbed.RDP, c *Client, buf *fb.Buffer, mod func(*Config), tol int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if buf.Coverage() >= 1 {
			if bad, _ := frameDiff(buf, srv.Capture(t), tol); bad == 0 {
				return
			}
		}
		select {
		case <-c.Done():
			t.Logf("the server ended the session (%v); dialling again", c.Err())
			_, buf = dialTest(t, srv, mod)
			waitMatch(t, srv, buf, tol)
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
	waitMatch(t, srv, buf, tol) // fails, saying how the picture differs
}
