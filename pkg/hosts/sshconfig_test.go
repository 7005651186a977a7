package hosts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	SystemSSHConfigPath = "" // the machine's own /etc/ssh/ssh_config stays out of these tests
	os.Exit(m.Run())
}

func TestSSHConfigHosts(t *testing.T) {
	dir := t.TempDir()
	inc := filepath.Join(dir, "config.d")
	os.MkdirAll(inc, 0o700)
	os.WriteFile(filepath.Join(inc, "work.conf"), []byte("Host included\n  HostName inc.example\n"), 0o600)
	cfg := filepath.Join(dir, "config")
	os.WriteFile(cfg, []byte(`# comment
Include config.d/*.conf
Host lab lab-alias
    HostName 10.0.0.5
    Port 2222
    User pat
Host web-*  !web-9
    User webber
Host web-1
    HostName=web1.example   # trailing comment
Host "quoted"
    HostName %h.example
Host *.corp ?x
    User corp
Match host foo
    User nobody
Host bare
Host *
    User fallback
    Port 2200
`), 0o600)
	got := map[string]Host{}
	var order []string
	for _, h := range SSHConfigHosts(cfg) {
		got[h.Name] = h
		order = append(order, h.Name)
	}
	if strings.Join(order, ",") != "included,lab,lab-alias,web-1,quoted,bare" {
		t.Fatalf("aliases %v", order)
	}
	check := func(name, addr string, port int, user string) {
		t.Helper()
		h := got[name]
		if h.Address != addr || h.Port != port || h.User != user || h.Protocol != "ssh" || h.ID != "ssh-"+name || h.Source != SourceSSHConfig {
			t.Errorf("%s = %+v, want %s:%d user %q", name, h, addr, port, user)
		}
	}
	check("lab", "10.0.0.5", 2222, "pat")
	check("lab-alias", "10.0.0.5", 2222, "pat")
	check("web-1", "web1.example", 2200, "webber")
	check("quoted", "quoted.example", 2200, "fallback")
	check("bare", "bare", 2200, "fallback")
	check("included", "inc.example", 2200, "fallback")

	if hs := SSHConfigHosts(filepath.Join(dir, "missing")); len(hs) != 0 {
		t.Fatalf("missing file gave %v", hs)
	}
}

// TestSSHConfigRefusedIsReported: a configuration ssh refuses (here an
// Include loop) lists no hosts, and the reason names the file and line.
func TestSSHConfigRefusedIsReported(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	os.WriteFile(cfg, []byte("Host loop\nInclude config\n"), 0o600)
	hs, err := ReadSSHConfigHosts(cfg)
	if len(hs) != 0 || err == nil || !strings.Contains(err.Error(), cfg+" line 2: Include nested more than 16 deep") {
		t.Fatalf("%v %v", hs, err)
	}
	if hs := SSHConfigHosts(cfg); len(hs) != 0 {
		t.Fatalf("%v", hs)
	}
}

// TestSSHConfigSystemFileApplies: the system file is read after the
// user's, as ssh reads it: it fills what the user's file leaves unset.
func TestSSHConfigSystemFileApplies(t *testing.T) {
	dir := t.TempDir()
	SystemSSHConfigPath = filepath.Join(dir, "ssh_config")
	defer func() { SystemSSHConfigPath = "" }()
	os.WriteFile(SystemSSHConfigPath, []byte("Host *\n  User sys\n  Port 2022\nHost only-system\n"), 0o600)
	cfg := filepath.Join(dir, "config")
	os.WriteFile(cfg, []byte("Host mine\n  Port 2200\n"), 0o600)
	hs, err := ReadSSHConfigHosts(cfg)
	if err != nil || len(hs) != 1 || hs[0].Name != "mine" || hs[0].Port != 2200 || hs[0].User != "sys" {
		t.Fatalf("%+v %v", hs, err)
	}
}
