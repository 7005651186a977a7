package system_test

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// startSandboxedDaemon starts dvvd in its own mount namespace where ro is
// mounted read-only, as the service unit's ProtectSystem=strict leaves the
// caller's tree: dvvd cannot write there, the test (and dvv) can.
func startSandboxedDaemon(t *testing.T, home, ro string) *daemon {
	t.Helper()
	id := fmt.Sprintf("sys%d-%d", os.Getpid(), instances.Add(1))
	d := &daemon{t: t, id: id, socket: filepath.Join(home, "dvv", id+".sock"), home: home}
	d.env = append(cleanEnv(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_RUNTIME_DIR="+home, "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(home, "no-bus"), "DVV_SOCKET="+d.socket)
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
		`mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && cd "$1" && exec "$0" --id "$2" --no-discovery --log-level debug`,
		dvvdBin, ro, id)
	cmd.Env = d.env
	d.proc = testbed.Start(t, "dvvd", cmd)
	testbed.WaitFile(t, d.socket, 10*time.Second)
	testbed.Eventually(t, 10*time.Second, "dvvd to answer ping", func() bool { return d.dvv("ping").code == 0 })
	return d
}

// TestCLIWritesForSandboxedDaemon: a dvvd that may not write the caller's
// directory (and that runs in it) still serves `dvv screen --out` and
// `dvv files get` into it, because dvv writes those files itself.
func TestCLIWritesForSandboxedDaemon(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	work := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	d := startSandboxedDaemon(t, s.Home, work)
	_, vnc := openVNC(t, d)
	ssh := openSSH(t, d, s)

	// The sandbox holds: dvvd itself cannot write there.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, d.socket, client.Options{Name: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Screen(ctx, wire.ScreenArgs{Target: wire.Target{LimbID: vnc}, Out: filepath.Join(work, "by-dvvd.png")})
	if err == nil || !strings.Contains(err.Error(), "read-only file system") {
		t.Fatalf("dvvd wrote into the read-only directory (or failed otherwise): %v", err)
	}

	shot := filepath.Join(work, "shot.png")
	r := d.must("screen", vnc, "--out", shot)
	if !strings.HasPrefix(r.stdout, shot+"\n") {
		t.Errorf("screen printed %q", r.stdout)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
		t.Fatalf("shot.png: %v %v", img.Bounds(), err)
	}

	content := "written remotely, fetched by dvv\n"
	if err := os.WriteFile(filepath.Join(s.RemoteHome, "notes.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(work, "notes.txt")
	d.must("files", "get", ssh, filepath.Join(s.RemoteHome, "notes.txt"), local)
	if b, err := os.ReadFile(local); err != nil || string(b) != content {
		t.Fatalf("fetched file holds %q (%v)", b, err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(work, ".dvv-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}
