package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
)

// Binaries built once per test run for the tests that drive real processes.
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary returns the path of cmd/<name> built for this test run.
func binary(t testing.TB, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "dvvmcp-test-bin-")
		if buildErr != nil {
			return
		}
		for _, n := range []string{"dvvd", "dvvmcp"} {
			out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, n), "github.com/dvvhq/dvv/cmd/"+n).CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", n, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, name)
}

// realDvvd is a dvvd started by the test, with its own instance id and a
// private HOME so no user configuration is read or written.
type realDvvd struct {
	ID, Socket, Home string
	Proc             *testbed.Proc
}

func startDvvd(t testing.TB) *realDvvd {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	d := &realDvvd{ID: "test-" + hex.EncodeToString(b), Home: t.TempDir()}
	d.Socket = client.SocketPath(d.ID)
	d.restart(t)
	return d
}

// restart starts dvvd (again) under the same id, so its socket path is the same.
func (d *realDvvd) restart(t testing.TB) {
	t.Helper()
	cmd := exec.Command(binary(t, "dvvd"), "--id", d.ID, "--no-discovery", "--log-level", "debug")
	cmd.Env = append(os.Environ(), "HOME="+d.Home, "XDG_CONFIG_HOME="+filepath.Join(d.Home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(d.Home, ".local/share"), "DBUS_SESSION_BUS_ADDRESS=", "DVV_TOKEN=")
	d.Proc = testbed.Start(t, "dvvd", cmd)
	testbed.Eventually(t, 10*time.Second, "dvvd to answer on "+d.Socket, func() bool {
		c, err := net.DialTimeout("unix", d.Socket, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// kill ends dvvd at once (SIGKILL to its process group) and waits until its
// socket no longer answers. (testbed.Proc.Kill reads the process state
// while its waiter writes it, which the race detector reports.)
func (d *realDvvd) kill(t testing.TB) {
	t.Helper()
	syscall.Kill(-d.Proc.Cmd.Process.Pid, syscall.SIGKILL)
	testbed.Eventually(t, 10*time.Second, "dvvd to die", func() bool {
		c, err := net.DialTimeout("unix", d.Socket, time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
}
