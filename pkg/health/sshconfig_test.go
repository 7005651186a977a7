package health

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestCheckSSHConfig: the check counts the aliases dvv would list, with
// Includes followed, and fails naming the file and line of a configuration
// ssh would refuse.
func TestCheckSSHConfig(t *testing.T) {
	hosts.SystemSSHConfigPath = ""
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	os.WriteFile(cfg, []byte("Include more\nHost a b *.lan\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "more"), []byte("Host c\n"), 0o600)
	if c := checkSSHConfig(Env{SSHConfig: cfg}); c.Status != wire.HealthOK || !strings.Contains(c.Detail, "3 host alias(es)") {
		t.Fatalf("%+v", c)
	}
	os.WriteFile(filepath.Join(dir, "more"), []byte("Host c\n  User \"x\n"), 0o600)
	c := checkSSHConfig(Env{SSHConfig: cfg})
	if c.Status != wire.HealthFail || !strings.Contains(c.Detail, filepath.Join(dir, "more")+" line 2: unterminated quote") || c.Fix == "" {
		t.Fatalf("%+v", c)
	}
	if c := checkSSHConfig(Env{SSHConfig: filepath.Join(dir, "missing")}); c.Status != wire.HealthOK {
		t.Fatalf("%+v", c)
	}
}
