package vnc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTrustCertCheckedOverWSS: hosts trust reads a wss:// endpoint's
// certificate (websockify with TLS) and pins it only with the right
// fingerprint or acceptNew; the pin is what a wss:// limb then checks.
func TestTrustCertCheckedOverWSS(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	pinFile := filepath.Join(cfg, "dvv", "known_certs")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 200})
	port, der := testbed.StartWebsockifyTLS(t, v.Addr)
	hp := fmt.Sprintf("127.0.0.1:%d", port)
	real := rfb.Fingerprint(der)
	ctx := context.Background()

	// A connection's refusal carries the fingerprint and the exact command.
	_, err := Dial(ctx, limb.Target{Address: "wss://" + hp}, fb.New())
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.HostKeyUnknown || we.Fingerprint != real ||
		!strings.Contains(we.Next, "dvv hosts trust "+hp+" --protocol vnc --fingerprint "+real) {
		t.Fatalf("first contact: %#v, want HOSTKEY_UNKNOWN carrying %s and the command", err, real)
	}

	_, _, err = TrustCertChecked(ctx, hp, strings.Repeat("CD:", 31)+"CD", false)
	if code(err) != wire.HostKeyChanged || !strings.Contains(err.Error(), real) {
		t.Fatalf("wrong fingerprint: %v, want HOSTKEY_CHANGED showing %s", err, real)
	}
	_, _, err = TrustCertChecked(ctx, hp, "", false)
	if !errors.As(err, &we) || we.Code != wire.HostKeyUnknown || we.Fingerprint != real ||
		!strings.Contains(we.Next, "dvv hosts trust "+hp+" --protocol vnc --fingerprint "+real) {
		t.Fatalf("no fingerprint: %#v, want HOSTKEY_UNKNOWN carrying %s and the command", err, real)
	}
	if _, err := os.Stat(pinFile); !os.IsNotExist(err) {
		t.Fatalf("a refused trust wrote %s (%v)", pinFile, err)
	}
	fp, already, err := TrustCertChecked(ctx, hp, strings.ToLower(strings.ReplaceAll(real, ":", "")), false)
	if err != nil || fp != real || already {
		t.Fatalf("right fingerprint (lower case, no colons): %q %v %v", fp, already, err)
	}
	if b, _ := os.ReadFile(pinFile); string(b) != hp+" "+real+"\n" {
		t.Fatalf("known_certs = %q", b)
	}
	if _, already, err := TrustCertChecked(ctx, hp, "", true); err != nil || !already {
		t.Fatalf("trusting again: already=%v %v", already, err)
	}
	d, err := Dial(ctx, limb.Target{Address: "wss://" + hp}, fb.New())
	if err != nil {
		t.Fatalf("wss after trust: %v", err)
	}
	d.Close()
}

// TestTrustCertCheckedWithoutCertificate: a VncAuth server has no
// certificate; trust says so, writes nothing and never tries a password
// (TigerVNC would count a failed one towards blocking the address).
func TestTrustCertCheckedWithoutCertificate(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	v := testbed.StartXvnc(t, testbed.XvncOptions{Password: "secret12"})
	_, _, err := TrustCertChecked(context.Background(), v.Addr, "", true)
	if code(err) != wire.Unsupported || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("VncAuth server: %v, want UNSUPPORTED", err)
	}
	if _, err := os.Stat(filepath.Join(cfg, "dvv", "known_certs")); !os.IsNotExist(err) {
		t.Fatalf("known_certs written for a server without a certificate (%v)", err)
	}
	if b, _ := os.ReadFile(v.Server.Log); strings.Contains(string(b), "uthentication fail") {
		t.Fatalf("trust tried a password:\n%s", b)
	}
}
