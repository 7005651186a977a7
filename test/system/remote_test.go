package system_test

import (
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestRemoteSocketOverSSH: dvv and dvvmcp with --socket/DVV_SOCKET
// ssh://user@host:port/id reach a dvvd on the far side of the suite's real
// sshd through the real OpenSSH client and `dvv stdio-proxy`, drive a VNC
// limb that dvvd holds, and get the screen written on this side.
func TestRemoteSocketOverSSH(t *testing.T) {
	t.Parallel()
	remoteRun := t.TempDir() // the remote user's $XDG_RUNTIME_DIR (and HOME)
	s := testbed.StartSSHD(t, testbed.SSHDConfig("SetEnv HOME="+remoteRun+" XDG_RUNTIME_DIR="+remoteRun))
	d := startDaemonIn(t, "", remoteRun)
	x := testbed.StartXvnc(t, testbed.XvncOptions{})

	key := filepath.Join(s.Home, ".ssh", "id_ed25519")
	kh := filepath.Join(s.Home, ".ssh", "known_hosts")
	url := "ssh://" + s.User + "@127.0.0.1:" + strconv.Itoa(s.Port) + "/" + d.id
	local := t.TempDir()
	env := []string{"HOME=" + local, "XDG_RUNTIME_DIR=" + local, "DVV_SOCKET=" + url, "DVV_REMOTE_DVV=" + dvvBin,
		"DVV_SSH_COMMAND=ssh -F /dev/null -i " + key + " -o UserKnownHostsFile=" + kh + " -o StrictHostKeyChecking=yes -o BatchMode=yes"}
	dvv := func(args ...string) result { return d.run("remote-shell", "", env, args...) }
	must := func(args ...string) result {
		t.Helper()
		r := dvv(args...)
		if r.code != 0 {
			t.Fatal(r)
		}
		return r
	}

	if r := must("version"); !strings.Contains(r.stdout, "instance "+d.id+", pid "+strconv.Itoa(d.proc.Cmd.Process.Pid)) {
		t.Fatalf("version through ssh names another dvvd: %v", r)
	}
	limb := strings.TrimSpace(must("open", x.Addr, "--protocol", "vnc", "--perceive", "--wait").stdout)
	// The limb lives in the remote dvvd: its own socket lists it.
	if r := d.must("limbs"); !strings.Contains(r.stdout, limb) {
		t.Errorf("the remote dvvd does not hold %s: %v", limb, r)
	}
	shot := filepath.Join(local, "remote.png")
	must("screen", limb, "--out", shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil || img.Bounds().Dx() != 800 {
		t.Fatalf("the screen written here: %v %v", img, err)
	}

	// dvvmcp through the same address.
	mcpEnv := append(append([]string{}, d.env...), env...)
	if out := mcpCall(t, mcpEnv, "dvv_limbs"); !strings.Contains(out, limb) {
		t.Errorf("dvvmcp over ssh: %s", out)
	}

	// An instance nobody runs: DAEMON_UNAVAILABLE with the far side's reason.
	r := d.run("remote-shell", "", append(env, "DVV_SOCKET=ssh://"+s.User+"@127.0.0.1:"+strconv.Itoa(s.Port)+"/nobody"), "ping")
	wantExit(t, r, wire.ExitDaemon, wire.DaemonUnavailable)
	if !strings.Contains(r.stderr, "nobody.sock") {
		t.Errorf("the failure does not say what the far side said: %v", r)
	}
	wantExit(t, dvv("--socket", "ssh://127.0.0.1/../x", "ping"), wire.ExitUsage, wire.BadRequest)
}
