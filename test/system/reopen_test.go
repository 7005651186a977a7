package system_test

import (
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestReopenAfterAuthFailedUsesTheNewPassword: a saved host whose limb
// failed AUTH_FAILED is opened again after its password was fixed in the
// keychain; the second open dials with the stored password and connects,
// without `dvv reconnect`. The X server's own answer (a connected limb
// reading its screen) is the ground truth.
func TestReopenAfterAuthFailedUsesTheNewPassword(t *testing.T) {
	kr := testbed.StartKeyring(t)               // sets env: cannot be parallel
	const right, wrong = "Rt8-pass", "Wr0ng-pw" // VNC passwords are 8 bytes at most
	x := testbed.StartXvnc(t, testbed.XvncOptions{Password: right})
	d := startDaemon(t, kr.BusAddress)
	save := func(pw string) {
		t.Helper()
		r := d.run("shell-a", pw+"\n", nil, "hosts", "add", "lab", "--address", "127.0.0.1",
			"--port", strconv.Itoa(x.Port), "--protocol", "vnc", "--password-stdin")
		if r.code != 0 {
			t.Fatal(r)
		}
	}

	save(wrong)
	// --keep: a failed open closes its limb otherwise, and the point here is
	// reopening the failed one.
	r := d.dvv("open", "lab", "--perceive", "--wait", "--wait-timeout", "20s", "--keep")
	wantExit(t, r, wire.ExitDenied, wire.AuthFailed)
	limbs := response(t, d.must("limbs", "--json"))
	if len(limbs.Limbs) != 1 || limbs.Limbs[0].State != wire.StateFailed {
		t.Fatalf("after the wrong password the limb should be failed: %+v", limbs.Limbs)
	}
	id := limbs.Limbs[0].LimbID

	save(right)
	r = d.dvv("open", "lab", "--perceive", "--wait", "--wait-timeout", "20s")
	if r.code != 0 {
		t.Fatalf("open after the password was fixed: %v\ndvvd log:\n%s", r, d.log())
	}
	if got := strings.TrimSpace(r.stdout); got != id {
		t.Errorf("the second open answered limb %q, want the same limb %q", got, id)
	}
	st := response(t, d.must("status", id, "--json"))
	if st.Observation == nil || st.Observation.State != wire.StateConnected || st.Observation.LastError != nil {
		t.Fatalf("status after the reopen: %+v", st.Observation)
	}
	// The session is real: a colour set on the X server comes back through it.
	x.Run(t, "xsetroot", "-solid", "#c01020")
	shot := filepath.Join(t.TempDir(), "s.png")
	testbed.Eventually(t, 10*time.Second, "the root colour through the reopened limb", func() bool {
		d.must("screen", id, "--out", shot)
		f, err := os.Open(shot)
		if err != nil {
			return false
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
			return false
		}
		r, g, b, _ := img.At(400, 300).RGBA()
		return r>>8 == 0xc0 && g>>8 == 0x10 && b>>8 == 0x20
	})
	if strings.Contains(d.log(), right) || strings.Contains(d.log(), wrong) {
		t.Error("a password was logged")
	}
}
