package e2e

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestSavedHostCredentialNeverLeaks opens a VncAuth Xvnc by hostId with the
// password from a real keychain, exercises the ops around it, and then
// searches every answer, every log line and every file under HOME for the
// password.
func TestSavedHostCredentialNeverLeaks(t *testing.T) {
	const secret = "Zq7pw9xK" // VNC passwords are at most 8 characters
	k := testbed.StartKeyring(t)
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480, Password: secret})
	kc := keychain.OpenLazy()
	hs, err := hosts.Open(hosts.DefaultPath())
	if err != nil {
		t.Fatal(err)
	}
	ts, err := policy.OpenTokenStore(policy.DefaultTokenPath())
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuf
	d := startDaemonWith(t, daemon.Services{Hosts: hs, Keychain: kc, Tokens: ts}, &logs)
	c := dial(t, d, "agent")
	var answers []string
	record := func(r *wiretest.Response, err error) *wiretest.Response {
		b, _ := json.Marshal(r)
		answers = append(answers, string(b))
		if err != nil {
			answers = append(answers, err.Error())
		}
		return r
	}
	call := func(a wire.Args) (*wiretest.Response, error) {
		r, err := do(t, c, a)
		record(r, err)
		return r, err
	}
	if _, err := call(wire.HostAddArgs{Host: wire.HostSpec{Name: "lab", Protocol: "vnc", Address: "127.0.0.1", Port: v.Port}, Password: secret}); err != nil {
		t.Fatal(err)
	}
	if out, _ := k.SecretTool(t, "", "search", "--all", keychain.AttrApplication, keychain.Application); !strings.Contains(out, "[/") {
		t.Fatalf("keychain has no dvv item: %s", out)
	}
	hl, _ := call(wire.HostsArgs{})
	if len(hl.Hosts) != 1 || !hl.Hosts[0].HasCredential {
		t.Fatalf("hosts %+v", hl.Hosts)
	}
	_, err = call(wire.OpenArgs{HostID: "lab", Protocol: "vnc"})
	if client.Code(err) != wire.BadRequest {
		t.Fatalf("protocol beside hostId: %v", err)
	}
	r, err := call(wire.OpenArgs{HostID: "lab", Perceive: boolp(true)})
	if err != nil {
		t.Fatal(err)
	}
	if w, err := call(wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)}); err != nil || !w.Wait.Settled {
		t.Fatalf("open by hostId with the keychain password: %v", err)
	}
	limb := wire.Target{LimbID: r.LimbID}
	for _, a := range []wire.Args{wire.StatusArgs{Target: limb}, wire.LimbsArgs{}, wire.SignalsArgs{Target: limb},
		wire.ScreenArgs{Target: limb, Scale: f64p(0.25)}, wire.HistoryArgs{Target: limb}, wire.ReconnectArgs{Target: limb}} {
		if _, err := call(a); err != nil {
			t.Fatalf("%s: %v", a.Op(), err)
		}
	}
	// A wrong stored password is AUTH_FAILED, and says nothing of the secret.
	call(wire.HostAddArgs{Host: wire.HostSpec{Name: "lab-wrong", Protocol: "vnc", Address: "localhost", Port: v.Port}, Password: secret[:4] + "XXXX"})
	r2, _ := call(wire.OpenArgs{HostID: "lab-wrong"})
	if _, err := call(wire.WaitArgs{Target: wire.Target{LimbID: r2.LimbID}, Until: "connected", TimeoutMs: intp(20000)}); cause(err) != wire.AuthFailed {
		t.Fatalf("wrong stored password: %v", err)
	}
	call(wire.HostRemoveArgs{HostID: "lab-wrong"})

	for i, a := range answers {
		if strings.Contains(a, secret) {
			t.Errorf("answer %d carries the secret: %s", i, a)
		}
	}
	if strings.Contains(logs.String(), secret) {
		t.Error("a log line carries the secret")
	}
	if !strings.Contains(logs.String(), "limb opened") {
		t.Error("no log captured; the search proved nothing")
	}
	filepath.WalkDir(k.Home, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
			t.Errorf("file %s carries the secret", p)
		}
		return nil
	})
}
