package daemon

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

func TestTokensLimitWhatAnAttachmentMayDo(t *testing.T) {
	ts, err := policy.OpenTokenStore(filepath.Join(t.TempDir(), "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, Config{Desktop: fakeDialers(), Services: Services{Tokens: ts}})
	owner := dialClient(t, d, client.Options{Name: "me"})
	id := openFake(t, owner, "fake")
	tok := mustDo(t, owner, wire.TokenCreateArgs{Role: "observer"})
	if !strings.HasPrefix(tok.Token, "dvv_") || len(tok.Tokens) != 1 {
		t.Fatalf("token %+v", tok)
	}
	obs := dialClient(t, d, client.Options{Name: "watcher", Token: tok.Token})
	if obs.Info.Role != "observer" {
		t.Fatalf("attached as %+v", obs.Info)
	}
	mustDo(t, obs, wire.StatusArgs{Target: wire.Target{LimbID: id}})
	_, err = do(t, obs, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	if client.Code(err) != wire.PolicyDenied || !strings.Contains(err.Error(), `"control"`) {
		t.Fatalf("observer acquire: %v", err)
	}
	_, err = do(t, obs, wire.TokenCreateArgs{Role: "owner"})
	wantCode(t, err, wire.PolicyDenied)
	op := mustDo(t, owner, wire.TokenCreateArgs{Role: "operator"})
	opc := dialClient(t, d, client.Options{Name: "agent", Token: op.Token})
	_, err = do(t, opc, wire.RunArgs{Target: wire.Target{LimbID: id}, Command: "true", TimeoutMs: 1000})
	if client.Code(err) != wire.PolicyDenied || !strings.Contains(err.Error(), "exec") {
		t.Fatalf("operator run without exec: %v", err)
	}
	mustDo(t, owner, wire.TokenRevokeArgs{TokenID: tok.Tokens[0].ID})
	_, err = do(t, obs, wire.StatusArgs{Target: wire.Target{LimbID: id}})
	wantCode(t, err, wire.PolicyDenied)
	_, err = client.Dial(t.Context(), d.SocketPath(), client.Options{Token: tok.Token})
	wantCode(t, err, wire.PolicyDenied)
	if l := mustDo(t, owner, wire.TokenListArgs{}); len(l.Tokens) != 1 {
		t.Fatalf("tokens %+v", l.Tokens)
	}
}
