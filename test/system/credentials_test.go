package system_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestPasswordFromCredentialsFile: a dvvd with no keychain at all (no
// session bus) dials a password-protected Xvnc with the password from
// ~/.config/dvv/credentials; a file others can read is refused; no answer
// and no log line carries the password.
func TestPasswordFromCredentialsFile(t *testing.T) {
	t.Parallel()
	const password = "Cf7-headless"
	x := testbed.StartXvnc(t, testbed.XvncOptions{Password: password})
	d := startDaemon(t, "")
	var said strings.Builder
	run := func(args ...string) result {
		r := d.dvv(args...)
		said.WriteString(r.stdout + r.stderr)
		return r
	}
	if r := run("hosts", "add", "lab", "--address", "127.0.0.1", "--port", strconv.Itoa(x.Port), "--protocol", "vnc"); r.code != 0 {
		t.Fatal(r)
	}
	cred := filepath.Join(d.home, ".config", "dvv", "credentials")
	if err := os.WriteFile(cred, []byte("# headless lab\nlab:"+password+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(cred, 0o644)
	r := run("open", "lab", "--wait", "--wait-timeout", "20s")
	wantExit(t, r, wire.ExitDenied, wire.KeychainMissing)
	if !strings.Contains(r.stderr, "chmod 600 "+cred) {
		t.Errorf("refusal of a readable file: %v", r)
	}

	os.Chmod(cred, 0o600)
	r = run("open", "lab", "--wait", "--wait-timeout", "20s")
	if r.code != 0 {
		t.Fatal(r)
	}
	limb := strings.TrimSpace(r.stdout)
	run("status", limb, "--json")
	run("hosts", "--json")
	run("limbs", "--json")
	if !strings.Contains(said.String(), `"hasCredential":true`) {
		t.Errorf("hosts does not show the file's credential: %s", said.String())
	}
	if strings.Contains(said.String(), password) || strings.Contains(d.log(), password) {
		t.Fatalf("the password left dvvd")
	}
}
