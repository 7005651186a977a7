package system_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestNoDaemon: with nothing on the socket every command exits 3 and says
// how to start dvvd; --json still prints one error object.
func TestNoDaemon(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := &daemon{t: t, env: append(cleanEnv(), "HOME="+dir, "DVV_SOCKET="+filepath.Join(dir, "none.sock"))}
	for _, args := range [][]string{{"ping"}, {"limbs"}, {"status", "vnc-00000000"}, {"events"}} {
		r := d.dvv(args...)
		wantExit(t, r, wire.ExitDaemon, wire.DaemonUnavailable)
		if !strings.Contains(r.stderr, "dvvd &") {
			t.Errorf("the message does not say how to start dvvd: %v", r)
		}
	}
	r := d.dvv("limbs", "--json")
	if resp := response(t, r); r.code != wire.ExitDaemon || resp.Code != wire.DaemonUnavailable || resp.Result != wire.ResultError {
		t.Errorf("--json: %v", r)
	}
	// --socket wins over DVV_SOCKET.
	other := startDaemon(t, "")
	if r := d.dvv("--socket", other.socket, "ping"); r.code != 0 {
		t.Errorf("--socket: %v", r)
	}
	if r := d.dvv("version"); r.code != 0 || !strings.Contains(r.stdout, "dvvd: not running") {
		t.Errorf("version without dvvd: %v", r)
	}
}

// TestEmptyDaemon: ping, empty lists, error classes that need no server,
// and shutdown.
func TestEmptyDaemon(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")

	if r := d.must("ping"); !strings.Contains(r.stdout, "role owner") {
		t.Errorf("ping: %v", r)
	}
	if r := d.must("limbs"); !strings.Contains(r.stdout, "no limbs") {
		t.Errorf("limbs: %v", r)
	}
	if resp := response(t, d.must("limbs", "--json")); resp.Result != wire.OpLimbs || len(resp.Limbs) != 0 {
		t.Errorf("limbs --json: %+v", resp)
	}
	if r := d.must("version"); !strings.Contains(r.stdout, "dvvd ") || !strings.Contains(r.stdout, d.id) {
		t.Errorf("version: %v", r)
	}

	// Unknown limb: LIMB_GONE's class, in text and JSON.
	wantExit(t, d.dvv("status", "vnc-00000000"), wire.ExitGone, wire.LimbGone)
	r := d.dvv("click", "vnc-00000000", "1", "2", "--json")
	if resp := response(t, r); r.code != wire.ExitGone || resp.Code != wire.LimbGone {
		t.Errorf("click on an unknown limb --json: %v", r)
	}
	wantExit(t, d.dvv("group", "close", "grp-404"), wire.ExitGone, wire.NotFound)
	wantExit(t, d.dvv("hosts", "rm", "nothing-here"), wire.ExitGone, wire.NotFound)
	wantExit(t, d.dvv("token", "revoke", "tok-00000000"), wire.ExitGone, wire.NotFound)

	// Usage errors never reach dvvd.
	wantExit(t, d.dvv("click", "vnc-00000000", "1"), wire.ExitUsage, "")
	wantExit(t, d.dvv("open", "127.0.0.1:5900"), wire.ExitUsage, "")
	wantExit(t, d.dvv("nosuchcommand"), wire.ExitUsage, "")
	// …and dvvd's own BAD_REQUEST has the same class.
	wantExit(t, d.dvv("open", "no-such-saved-host"), wire.ExitGone, wire.NotFound)
	wantExit(t, d.dvv("open", "127.0.0.1", "--protocol", "vnc", "--slot", "1"), wire.ExitUnsupported, wire.SlotRefused)

	// A limb to a port where nothing listens: open succeeds, the wait does
	// not settle (exit 11), status says why, close is idempotent.
	port := testbed.FreePort(t)
	r = d.must("open", "127.0.0.1:"+strconv.Itoa(port), "--protocol", "vnc", "--wait=false")
	limb := strings.TrimSpace(r.stdout)
	if !strings.HasPrefix(limb, "vnc-") || strings.Contains(limb, "\n") {
		t.Fatalf("open printed %q, want only a limb id", r.stdout)
	}
	r = d.dvv("wait", limb, "--until", "connected", "--timeout-ms", "300")
	if r.code != 11 && r.code != wire.ExitConnection {
		t.Errorf("wait on an unreachable limb: %v", r)
	}
	testbed.Eventually(t, 10*time.Second, "status to show the dial failure", func() bool {
		return strings.Contains(d.must("status", limb).stdout, string(wire.Unreachable))
	})
	if r := d.must("limbs"); !strings.Contains(r.stdout, limb) {
		t.Errorf("limbs does not list %s: %v", limb, r)
	}
	d.must("close", limb)
	d.must("close", limb)

	if r := d.must("hosts", "--discovered"); !strings.Contains(r.stdout, "nothing discovered") || !strings.Contains(r.stderr, "discovery is off") {
		t.Errorf("hosts --discovered: %v", r)
	}
	if r := d.must("group", "ls"); !strings.Contains(r.stdout, "no groups") {
		t.Errorf("group ls: %v", r)
	}

	// Shutdown: dvvd exits and the next command is DAEMON_UNAVAILABLE.
	d.must("shutdown")
	testbed.Eventually(t, 10*time.Second, "dvvd to exit", func() bool { return d.proc.Cmd.ProcessState != nil })
	wantExit(t, d.dvv("ping"), wire.ExitDaemon, wire.DaemonUnavailable)
}

// TestTokens: create prints the secret once, ls never shows it, a token's
// role is enforced (POLICY_DENIED's class), revoke ends it.
func TestTokens(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	r := d.run("shell-a", "", nil, "token", "create", "--role", "observer", "--label", "ci-bot")
	if r.code != 0 {
		t.Fatal(r)
	}
	secret := strings.TrimSpace(r.stdout)
	if secret == "" || strings.Contains(secret, "\n") {
		t.Fatalf("token create printed %q, want only the secret", r.stdout)
	}
	ls := d.must("token", "ls")
	if !strings.Contains(ls.stdout, "ci-bot") || strings.Contains(ls.stdout, secret) {
		t.Fatalf("token ls: %v", ls)
	}
	list := response(t, d.must("token", "ls", "--json"))
	if len(list.Tokens) != 1 || list.Tokens[0].Role != "observer" {
		t.Fatalf("token ls --json: %+v", list)
	}
	id := list.Tokens[0].ID

	asToken := func(args ...string) result { return d.run("shell-bot", "", []string{"DVV_TOKEN=" + secret}, args...) }
	if r := asToken("ping"); r.code != 0 || !strings.Contains(r.stdout, "role observer") {
		t.Errorf("ping with the token: %v", r)
	}
	if r := asToken("hosts"); r.code != 0 {
		t.Errorf("an observer may list hosts: %v", r)
	}
	r = asToken("hosts", "add", "x", "--address", "127.0.0.1", "--protocol", "vnc")
	wantExit(t, r, wire.ExitDenied, wire.PolicyDenied)
	if !strings.Contains(r.stderr, "hosts.write") {
		t.Errorf("the denial does not name the capability: %v", r)
	}
	wantExit(t, asToken("shutdown"), wire.ExitDenied, wire.PolicyDenied)
	wantExit(t, asToken("token", "create", "--role", "owner"), wire.ExitDenied, wire.PolicyDenied)
	wantExit(t, d.run("shell-bot", "", []string{"DVV_TOKEN=dvv_wrong"}, "ping"), wire.ExitDenied, wire.PolicyDenied)

	d.must("token", "revoke", id)
	wantExit(t, asToken("limbs"), wire.ExitDenied, wire.PolicyDenied)
	if strings.Contains(d.log(), secret) {
		t.Error("dvvd logged the token")
	}
}

// TestHostsWithKeychain: a saved host's password goes to the keychain (read
// back with secret-tool), never to the hosts file, the log or any output.
func TestHostsWithKeychain(t *testing.T) {
	kr := testbed.StartKeyring(t) // sets env: cannot be parallel
	d := startDaemon(t, kr.BusAddress)
	const password = "Sekr1t-pa55-for-lab"

	r := d.run("shell-a", password+"\n", nil, "hosts", "add", "lab", "--address", "127.0.0.1", "--port", "5999",
		"--protocol", "vnc", "--password-stdin")
	if r.code != 0 {
		t.Fatal(r)
	}
	all := r.stdout + r.stderr
	if !strings.Contains(r.stdout, "lab") {
		t.Errorf("hosts add printed %v", r)
	}
	resp := response(t, d.must("hosts", "--json"))
	if len(resp.Hosts) != 1 || resp.Hosts[0].Name != "lab" || !resp.Hosts[0].HasCredential || resp.Hosts[0].Port != 5999 {
		t.Fatalf("hosts --json: %+v", resp.Hosts)
	}
	id := resp.Hosts[0].ID
	ls := d.must("hosts")
	all += ls.stdout
	if !strings.Contains(ls.stdout, id) || !strings.Contains(ls.stdout, "yes") {
		t.Errorf("hosts: %v", ls)
	}
	got, err := kr.SecretTool(t, "", "lookup", "application", "dvv", "dvv-host", id)
	if err != nil || got != password {
		t.Fatalf("keychain holds %q (%v), want the password", got, err)
	}
	files, _ := filepath.Glob(filepath.Join(d.home, ".config", "*", "*"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), password) {
			t.Errorf("%s holds the password", f)
		}
	}
	if strings.Contains(all+d.log(), password) {
		t.Error("the password was printed or logged")
	}

	// A saved host opens by name (nothing listens there: the limb exists
	// and reports the failure).
	r = d.must("open", "lab", "--wait=false")
	if !strings.HasPrefix(strings.TrimSpace(r.stdout), "vnc-") {
		t.Errorf("open lab: %v", r)
	}
	d.must("close", strings.TrimSpace(r.stdout))

	if r := d.must("hosts", "rm", "lab"); !strings.Contains(r.stdout, "removed lab") {
		t.Errorf("hosts rm: %v", r)
	}
	if _, err := kr.SecretTool(t, "", "lookup", "application", "dvv", "dvv-host", id); err == nil {
		t.Error("the keychain entry outlived hosts rm")
	}
	wantExit(t, d.dvv("hosts", "rm", "lab"), wire.ExitGone, wire.NotFound)
}
