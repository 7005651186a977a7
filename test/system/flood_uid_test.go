package system_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// buildFlooder builds testdata/flooder where uid nobody can run it.
func buildFlooder(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "dvv-flooder-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "flooder")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/flooder")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the flooder: %v\n%s", err, out)
	}
	return bin
}

// floodOpened is the last count a flooder printed.
func floodOpened(p *testbed.Proc) int {
	b, _ := os.ReadFile(p.Log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	n, _ := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], "opened "))
	return n
}

func openFDs(pid int) int {
	ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return len(ents)
}

// TestConnectionFloodFromAnotherUser: two processes of uid nobody keep
// thousands of silent connections open against the browser viewer's port
// and a share's TCP port of a dvvd allowed only 256 file descriptors.
// dvvd stays up, its control socket answers, the limb stays connected, and
// once the flood ends the viewer answers HTTP and the share lets a viewer
// in with its one-time password again.
func TestConnectionFloodFromAnotherUser(t *testing.T) {
	testbed.Need(t, "setpriv", "prlimit")
	testbed.NeedRoot(t, "running a flood as another user")
	flooder := buildFlooder(t)
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	d := startDaemon(t, "")
	limb := strings.TrimSpace(d.must("open", x.Addr, "--protocol", "vnc", "--wait").stdout)
	viewer := response(t, d.must("viewer", "--no-open", "--json")).Viewer
	u, err := url.Parse(viewer.URL)
	if err != nil {
		t.Fatal(err)
	}
	share := response(t, d.must("share", limb, "--tcp", "--json")).Share
	pid := d.proc.Cmd.Process.Pid
	if out, err := exec.Command("prlimit", "--pid", strconv.Itoa(pid), "--nofile=256:256").CombinedOutput(); err != nil {
		t.Fatalf("prlimit: %v\n%s", err, out)
	}

	var floods []*testbed.Proc
	for i := 0; i < 2; i++ {
		cmd := exec.Command("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", flooder, "-n", "1500", u.Host, share.TCP)
		floods = append(floods, testbed.Start(t, "flooder"+strconv.Itoa(i), cmd))
	}
	testbed.Eventually(t, 60*time.Second, "the flood to open 2000 connections", func() bool {
		return floodOpened(floods[0])+floodOpened(floods[1]) >= 2000
	})
	// While it goes on: the control socket answers and the limb is still
	// there and connected, several times over.
	for i := 0; i < 5; i++ {
		r := d.dvv("status", limb, "--json")
		if r.code != 0 {
			t.Fatalf("status during the flood (dvvd has %d fds open): %v\ndvvd log:\n%s", openFDs(pid), r, tailOf(d.log(), 3000))
		}
		if st := response(t, r).Observation.State; st != wire.StateConnected {
			t.Fatalf("limb during the flood: %s", st)
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Logf("flood: %d connections opened; dvvd holds %d file descriptors of 256", floodOpened(floods[0])+floodOpened(floods[1]), openFDs(pid))
	for _, f := range floods {
		f.Kill()
	}
	if d.proc.Exited() {
		t.Fatalf("dvvd exited under the flood:\n%s", tailOf(d.log(), 3000))
	}

	// After it: the viewer answers (a request without the secret is
	// refused, by the viewer), and the share lets a viewer in.
	testbed.Eventually(t, 30*time.Second, "the viewer to answer HTTP again", func() bool {
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + u.Host + "/api/limbs")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized
	})
	fresh := response(t, d.must("share", limb, "--tcp", "--json")).Share
	testbed.Eventually(t, 30*time.Second, "a share viewer to get in again", func() bool {
		return vncAttempt(fresh.TCP, fresh.Password) == nil
	})
	if st := response(t, d.must("status", limb, "--json")).Observation.State; st != wire.StateConnected {
		t.Fatalf("limb after the flood: %s", st)
	}
}

// vncAttempt is one viewer's handshake with a share's TCP port.
func vncAttempt(addr, password string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := rfb.Dial(ctx, addr, &rfb.Config{Password: password, Shared: true})
	if err == nil {
		v.Close()
	}
	return err
}

func tailOf(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
