package system_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// buildGuesser builds testdata/guesser where uid nobody can run it.
func buildGuesser(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "dvv-guesser-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "guesser")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/guesser").CombinedOutput(); err != nil {
		t.Fatalf("build the guesser: %v\n%s", err, out)
	}
	return bin
}

// personViews dials the share as the person (dvvd's own uid) with the
// right one-time password.
func personViews(addr, password string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	v, err := rfb.Dial(ctx, addr, &rfb.Config{Password: password, Shared: true})
	if err == nil {
		v.Close()
	}
	return err
}

// TestShareOtherUidLockout: uid nobody holds every
// handshake slot of a share's TCP port with silent connections, and then
// guesses passwords until the port blocks it. Neither keeps the person
// (dvvd's uid) out: their viewer gets in with its one-time password at
// once, each time, while nobody stays refused.
func TestShareOtherUidLockout(t *testing.T) {
	testbed.Need(t, "setpriv")
	testbed.NeedRoot(t, "attacking as another user")
	flooder, guesser := buildFlooder(t), buildGuesser(t)
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	d := startDaemon(t, "")
	limb := strings.TrimSpace(d.must("open", x.Addr, "--protocol", "vnc", "--wait").stdout)
	share := func() (addr, password string) {
		sh := response(t, d.must("share", limb, "--tcp", "--json")).Share
		return sh.TCP, sh.Password
	}
	addr, pw := share()

	flood := testbed.Start(t, "flooder", exec.Command("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", flooder, "-n", "40", addr))
	testbed.Eventually(t, 30*time.Second, "nobody to hold 40 connections", func() bool { return floodOpened(flood) >= 40 })
	if err := personViews(addr, pw); err != nil {
		t.Fatalf("the person's viewer while nobody holds every handshake slot: %v", err)
	}
	flood.Kill()

	guess := testbed.Start(t, "guesser", exec.Command("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", guesser, addr))
	testbed.Eventually(t, 30*time.Second, "nobody's guessing to be blocked", func() bool {
		b, _ := os.ReadFile(guess.Log)
		return strings.Contains(string(b), "refused: too many wrong passwords")
	})
	for i := 0; i < 3; i++ {
		_, pw = share()
		if err := personViews(addr, pw); err != nil {
			b, _ := os.ReadFile(guess.Log)
			t.Fatalf("the person's viewer %d while nobody is blocked: %v\nguesser:\n%s", i+1, err, tailOf(string(b), 500))
		}
	}
	b, _ := os.ReadFile(guess.Log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "refused: too many wrong passwords") {
		t.Fatalf("nobody's guessing after the person got in: %q; want still refused", last)
	}
	guess.Kill()
	t.Logf("nobody's attempts: %d (%d wrong)", len(lines), strings.Count(string(b), "wrong\n"))
}
