package system_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestServiceWithoutUserManager runs the real dvv where no systemd user
// manager is reachable (an empty XDG_RUNTIME_DIR, a session bus address
// where nothing listens): install writes the units, then fails in the
// class of what this environment cannot do (NOT_IMPLEMENTED, exit 9, not
// exit 3's "dvvd not reachable") and says to run `dvvd &`; uninstall
// removes the units and the links an earlier enable left, exits 0, and
// never claims the files are in place.
func TestServiceWithoutUserManager(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	runtimeDir := filepath.Join(home, "run")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(cleanEnv(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_RUNTIME_DIR="+runtimeDir, "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(home, "no-bus"))
	dvv := func(args ...string) result {
		cmd := exec.Command(dvvBin, args...)
		cmd.Env = env
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		r := result{args: args, stdout: out.String(), stderr: errOut.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The environment must have no manager for the test to mean anything.
	probe := exec.Command("systemctl", "--user", "show-environment")
	probe.Env = env
	if out, err := probe.CombinedOutput(); err == nil {
		t.Fatalf("a user service manager is reachable even without a runtime dir or bus: %s", out)
	}

	unitDir := filepath.Join(home, ".config", "systemd", "user")
	r := dvv("service", "install", "--dvvd", dvvdBin)
	wantExit(t, r, wire.ExitUnsupported, wire.NotImplemented)
	if !strings.Contains(r.stderr, "`dvvd &`") || !strings.Contains(r.stderr, "nothing was enabled or started") {
		t.Errorf("install does not say that nothing started and to run `dvvd &`: %v", r)
	}
	for _, f := range []string{"dvvd.service", "dvvd.socket"} {
		if _, err := os.Stat(filepath.Join(unitDir, f)); err != nil {
			t.Errorf("install did not write %s: %v", f, err)
		}
	}

	// An enable from an earlier session (with a manager) left its link.
	wants := filepath.Join(unitDir, "sockets.target.wants")
	if err := os.MkdirAll(wants, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(wants, "dvvd.socket")
	if err := os.Symlink(filepath.Join(unitDir, "dvvd.socket"), link); err != nil {
		t.Fatal(err)
	}
	r = dvv("service", "uninstall")
	if r.code != 0 {
		t.Fatalf("uninstall: %v", r)
	}
	if strings.Contains(r.stdout+r.stderr, "in place") || !strings.Contains(r.stderr, "nothing was stopped") {
		t.Errorf("uninstall's messages: %v", r)
	}
	for _, p := range []string{filepath.Join(unitDir, "dvvd.service"), filepath.Join(unitDir, "dvvd.socket"), link} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("uninstall left %s (%v): %v", p, err, r)
		}
		// (systemctl disable may drop the link itself before it fails to stop anything.)
		if p != link && !strings.Contains(r.stdout, "removed "+p) {
			t.Errorf("uninstall does not say it removed %s: %v", p, r)
		}
	}
}
