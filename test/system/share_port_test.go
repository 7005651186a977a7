package system_test

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestShareOnAFixedPort: `dvv share --port` listens where asked and a VNC
// viewer gets in there with the one-time password; another port while the
// share listens, or a port another program holds, is BUSY with what to do;
// after --stop the port can change.
func TestShareOnAFixedPort(t *testing.T) {
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	d := startDaemon(t, "")
	limb := strings.TrimSpace(d.must("open", x.Addr, "--protocol", "vnc", "--wait").stdout)
	port := testbed.FreePort(t)
	sh := response(t, d.must("share", limb, "--port", strconv.Itoa(port), "--json")).Share
	if want := "127.0.0.1:" + strconv.Itoa(port); sh.TCP != want || sh.Password == "" {
		t.Fatalf("share --port %d: tcp %q password %q, want %s with a password", port, sh.TCP, sh.Password, want)
	}
	if err := vncAttempt(sh.TCP, sh.Password); err != nil {
		t.Fatalf("a viewer on the fixed port: %v", err)
	}
	other := testbed.FreePort(t)
	r := d.dvv("share", limb, "--port", strconv.Itoa(other))
	wantExit(t, r, wire.ExitConnection, wire.Busy)
	if !strings.Contains(r.stderr, "--stop") {
		t.Errorf("the refusal does not say how to change the port: %v", r)
	}
	wantExit(t, d.dvv("share", limb, "--port", "0"), wire.ExitUsage, "")

	d.must("share", limb, "--stop")
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	taken := held.Addr().(*net.TCPAddr).Port
	wantExit(t, d.dvv("share", limb, "--port", strconv.Itoa(taken)), wire.ExitConnection, wire.Busy)
	sh = response(t, d.must("share", limb, "--port", strconv.Itoa(other), "--json")).Share
	if sh.TCP != "127.0.0.1:"+strconv.Itoa(other) {
		t.Fatalf("after --stop the share listens on %s, want port %d", sh.TCP, other)
	}
}
