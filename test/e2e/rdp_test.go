package e2e

import (
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	rdplimb "github.com/dvvhq/dvv/pkg/limb/rdp"
	"github.com/dvvhq/dvv/pkg/wire"
)

var fingerprintRe = regexp.MustCompile(`([0-9A-F]{2}:){31}[0-9A-F]{2}`)

// TestRDPSavedHostWithNLA opens FreeRDP's shadow server (NLA) by hostId with
// the password from the keychain, going through the certificate trust
// step a user would: HOSTKEY_UNKNOWN, trust the shown fingerprint, connect.
func TestRDPSavedHostWithNLA(t *testing.T) {
	testbed.StartKeyring(t)
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600, NLA: true})
	kc := keychain.OpenLazy()
	hs, err := hosts.Open(hosts.DefaultPath())
	if err != nil {
		t.Fatal(err)
	}
	trust := func(proto, addr string, port int, fp string, acceptNew bool) (string, bool, error) {
		return rdplimb.TrustCertChecked(t.Context(), addr, port, fp, acceptNew)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs, Keychain: kc, Trust: trust}, io.Discard)
	c := dial(t, d, "agent")
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "win", Protocol: "rdp", Address: "127.0.0.1", Port: srv.Port, User: srv.User}, Password: srv.Password})
	r := must(t, c, wire.OpenArgs{HostID: "win", Perceive: boolp(true)})
	_, err = do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	var we *wire.Error
	if cause(err) != wire.HostKeyUnknown || !fingerprintRe.MatchString(err.Error()) || !errors.As(err, &we) || we.Fingerprint == "" {
		t.Fatalf("first sight of the certificate: %v", err)
	}
	// The fingerprint the answer carries is what a person checks and trusts.
	must(t, c, wire.HostTrustArgs{Address: "127.0.0.1", Port: &srv.Port, Protocol: "rdp", Fingerprint: we.Fingerprint})
	must(t, c, wire.ReconnectArgs{Target: wire.Target{LimbID: r.LimbID}, TimeoutMs: intp(30000)})
	o := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation
	if o.State != "connected" || o.Size != (wire.Size{W: 800, H: 600}) || o.Geometry.Generation != 1 {
		t.Fatalf("rdp limb %+v", o)
	}
	// The shadow server sends only what changes after it started: draw.
	srv.Run(t, "xsetroot", "-solid", "#208040")
	testbed.Eventually(t, 15*time.Second, "the green root arrives", func() bool {
		s := must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: r.LimbID}, Form: "region", Region: &wire.Region{X: 400, Y: 300, W: 1, H: 1}})
		px := decodeScreen(t, s.Screen).RGBAAt(0, 0)
		return absDiff(px.R, 0x20) <= 8 && absDiff(px.G, 0x80) <= 4 && absDiff(px.B, 0x40) <= 8 // 16-bpp quantisation
	})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "acquire"})
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "move", X: intp(321), Y: intp(123), Generation: u64p(1)})
	testbed.Eventually(t, 10*time.Second, "pointer at 321,123", func() bool {
		x, y := srv.MouseLocation(t)
		return x == 321 && y == 123
	})
}

func absDiff(a uint8, b int) int {
	d := int(a) - b
	if d < 0 {
		return -d
	}
	return d
}

// openShadow opens FreeRDP's shadow server (no authentication) as a
// perceiving limb, trusting its certificate first, and takes the lease.
func openShadow(t *testing.T, srv *testbed.RDP) (*client.Client, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // certificate pins of this test only
	trust := func(proto, addr string, port int, fp string, acceptNew bool) (string, bool, error) {
		return rdplimb.TrustCertChecked(t.Context(), addr, port, fp, acceptNew)
	}
	d := startDaemonWith(t, daemon.Services{Trust: trust}, io.Discard)
	c := dial(t, d, "agent")
	must(t, c, wire.HostTrustArgs{Address: "127.0.0.1", Port: &srv.Port, Protocol: "rdp", AcceptNew: true})
	r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &srv.Port, Protocol: "rdp", Perceive: boolp(true)})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatalf("rdp limb: %+v", w.Observation)
	}
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "acquire"})
	return c, r.LimbID
}

// TestRDPTypeChecksTheWholeTextFirst: on a server without Unicode input,
// a text with characters no US key types is refused before any of it is
// sent (the xterm's file stays empty), and the rest types exactly.
func TestRDPTypeChecksTheWholeTextFirst(t *testing.T) {
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600})
	c, id := openShadow(t, srv)
	out := srv.CatTerm(t)
	typeRead := func(text string) error {
		_, err := doAfterRead(t, c, id, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: &text})
		return err
	}
	err := typeRead("héllo ünïcode\n")
	if client.Code(err) != wire.NotImplemented || !strings.Contains(err.Error(), "nothing was typed") {
		t.Fatalf("type with characters no key types: %v", err)
	}
	if err := typeRead("plain ascii\n"); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 10*time.Second, "typed line in the file", func() bool {
		b, _ := os.ReadFile(out)
		return strings.HasSuffix(string(b), "\n")
	})
	if b, _ := os.ReadFile(out); string(b) != "plain ascii\n" {
		t.Fatalf("the xterm received %q", b)
	}
}
