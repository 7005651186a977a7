package e2e

import (
	"io"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	rdplimb "github.com/dvvhq/dvv/pkg/limb/rdp"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestChordsOnXrdp sends the chord table through xrdp (scan codes turned
// into X keys by xrdp's own keymap) and reads what the application saw.
func TestChordsOnXrdp(t *testing.T) {
	srv, c, id := openXrdpLimb(t)
	srv.WaitDisplay(t)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	w := srv.WatchKeys(t)
	for _, tc := range chordTable {
		checkChord(t, c, id, w, tc)
	}
}

// openXrdpLimb starts xrdp and a dvvd with a keychain and saved hosts,
// trusts xrdp's certificate, saves it as host "x" with its password and
// opens it perceived: the limb is connected, xrdp's session display not
// necessarily yet (srv.WaitDisplay).
func openXrdpLimb(t *testing.T) (*testbed.RDP, *client.Client, string) {
	t.Helper()
	testbed.StartKeyring(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := testbed.StartXrdp(t, testbed.XrdpOptions{})
	hs, err := hosts.Open(hosts.DefaultPath())
	if err != nil {
		t.Fatal(err)
	}
	trust := func(proto, addr string, port int, fp string, acceptNew bool) (string, bool, error) {
		return rdplimb.TrustCertChecked(t.Context(), addr, port, fp, acceptNew)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs, Keychain: keychain.OpenLazy(), Trust: trust}, io.Discard)
	c := dial(t, d, "agent")
	must(t, c, wire.HostTrustArgs{Address: "127.0.0.1", Port: &srv.Port, Protocol: "rdp", AcceptNew: true})
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "x", Protocol: "rdp", Address: "127.0.0.1", Port: srv.Port, User: srv.User}, Password: srv.Password})
	id := must(t, c, wire.OpenArgs{HostID: "x", Perceive: boolp(true)}).LimbID
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(30000)}); !w.Wait.Settled {
		t.Fatalf("xrdp limb: %+v", w.Observation)
	}
	return srv, c, id
}
