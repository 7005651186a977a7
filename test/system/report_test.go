package system_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestReportLeavesPathsAndAddressesOut: a bug-report bundle from a dvvd
// with a live limb to a real Xvnc, a saved host on a routable address (its
// dial failures in the log), a saved host by DNS name and an ssh_config
// alias carries none of the local paths (socket, home, ssh config) nor those
// addresses, nor the users saved with them, by default; the log lines stay, masked; the README says what
// was masked and how to keep it. --redact-paths=false keeps them.
func TestReportLeavesPathsAndAddressesOut(t *testing.T) {
	t.Parallel()
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	home := t.TempDir()
	sshDir := filepath.Join(home, ".ssh")
	os.MkdirAll(sshDir, 0o700)
	sshConfig := filepath.Join(sshDir, "config")
	const aliasHost = "gw.corp.example"
	if err := os.WriteFile(sshConfig, []byte("Host gateway\n  HostName "+aliasHost+"\n  User opsteam\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemonIn(t, "", home)
	const routable, named = "198.51.100.7", "build.corp.example"
	d.must("hosts", "add", "far", "--address", routable, "--protocol", "vnc")
	d.must("hosts", "add", "corp", "--address", "deployer@"+named, "--protocol", "ssh")
	unroutable(t, routable)
	d.must("open", routable, "--protocol", "vnc", "--wait=false") // keeps dialling: its address goes into the log
	live := strings.TrimSpace(d.must("open", "127.0.0.1", "--protocol", "vnc", "--port", strconv.Itoa(x.Port),
		"--wait", "--wait-timeout", "20s").stdout)
	testbed.Eventually(t, 20e9, "the far host's address in dvvd's log", func() bool { return strings.Contains(d.log(), routable) })

	private := []string{home, d.socket, sshConfig, routable, named, aliasHost, os.TempDir() + "/", "deployer", "opsteam"}
	out := filepath.Join(t.TempDir(), "shared.tar.gz")
	d.must("report", "--out", out)
	files := untar(t, out)
	all := ""
	for name, b := range files {
		for _, p := range private {
			if strings.Contains(string(b), p) {
				t.Errorf("%s carries %q:\n%s", name, p, b)
			}
		}
		all += string(b)
	}
	daemon := string(files["dvv-report/daemon.json"])
	if !strings.Contains(daemon, "limb opened") || !strings.Contains(daemon, "<addr-") || !strings.Contains(daemon, "<path-") {
		t.Errorf("the log lines should stay, with paths and addresses masked:\n%s", daemon)
	}
	// Loopback says nothing about anyone's network: it stays, so the
	// bundle still shows which limb is which.
	if !strings.Contains(string(files["dvv-report/limbs/"+live+"/status.json"]), "127.0.0.1") {
		t.Errorf("the loopback limb's address was masked: %s", files["dvv-report/limbs/"+live+"/status.json"])
	}
	readme := string(files["dvv-report/README.txt"])
	for _, want := range []string{"--redact-paths=false", "paths: masked", "addresses: masked", "user names: masked"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.txt does not say %q:\n%s", want, readme)
		}
	}

	// The choice: a bundle kept private has them, and says so.
	mine := filepath.Join(t.TempDir(), "private.tar.gz")
	d.must("report", "--out", mine, "--redact-paths=false")
	files = untar(t, mine)
	kept := ""
	for _, b := range files {
		kept += string(b)
	}
	for _, p := range []string{d.socket, sshConfig, routable, named, "deployer", "opsteam"} {
		if !strings.Contains(kept, p) {
			t.Errorf("with --redact-paths=false the bundle lacks %q", p)
		}
	}
	if readme := string(files["dvv-report/README.txt"]); !strings.Contains(readme, "paths: kept") || !strings.Contains(readme, "addresses: kept") {
		t.Errorf("README.txt of a private bundle:\n%s", readme)
	}
}

// unroutable makes the kernel refuse every dial to addr at once, so a limb
// on a routable-looking address fails and logs it without a packet leaving
// this machine. It needs root (CI runs as root).
func unroutable(t *testing.T, addr string) {
	t.Helper()
	testbed.NeedRoot(t, "an unreachable route for a documentation address")
	if out, err := exec.Command("ip", "route", "replace", "unreachable", addr+"/32").CombinedOutput(); err != nil {
		t.Fatalf("ip route replace unreachable %s: %v: %s", addr, err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "route", "del", "unreachable", addr+"/32").Run() })
}
