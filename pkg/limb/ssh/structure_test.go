package ssh

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
	"github.com/dvvhq/dvv/pkg/xwin"
)

func sessionTarget(s *testbed.DesktopSession) limb.Target {
	return limb.Target{Protocol: wire.ProtoVNC, Address: "127.0.0.1", Port: s.Port, SSHPort: s.SSHD.Port, SSHUser: s.SSHD.User}
}

// The sidecar finds the display behind the VNC port among others (a
// second Xvnc runs beside it), reads the X server's cookie, and reaches
// both the X server and the accessibility bus over streamlocal forwarding.
func TestStructureFindsTheSessionBehindTheVNCPort(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Cookie: true})
	testbed.StartXvnc(t, testbed.XvncOptions{}) // a decoy display on the same machine
	_, win := s.Program(t, "sidecar-probe", "zenity", "--info", "--title", "sidecar-probe", "--text", "hello")
	st, err := testOpts(s.SSHD).DialStructure(context.Background(), sessionTarget(s))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info := st.Info()
	if info.Display != fmt.Sprintf(":%d", s.Num) {
		t.Fatalf("display %q, the session is :%d (found by %s)", info.Display, s.Num, info.Found)
	}
	if fmt.Sprintf("%x", info.XCookie) != s.Cookie {
		t.Fatalf("cookie %x, the server's is %s", info.XCookie, s.Cookie)
	}
	if info.A11yBus != s.A11yBus {
		t.Fatalf("accessibility bus %q (absent: %q), AT_SPI_BUS is %q", info.A11yBus, info.A11yAbsent, s.A11yBus)
	}
	nc, err := st.DialX11(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	x, err := xwin.Open(nc, info.XCookie)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ws, err := x.Windows()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := strconv.ParseUint(win, 10, 32)
	found := false
	for _, w := range ws {
		if w.ID == uint32(id) && w.Title == "sidecar-probe" {
			found = true
		}
	}
	if !found {
		t.Fatalf("window %s (sidecar-probe) not among %+v", win, ws)
	}
	bus, err := st.DialA11y(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	// The bus speaks first only after the client's NUL and AUTH: ask
	// which mechanisms it offers.
	bus.Write([]byte("\x00AUTH\r\n"))
	buf := make([]byte, 256)
	n, _ := bus.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "REJECTED") || !strings.Contains(string(buf[:n]), "EXTERNAL") {
		t.Fatalf("the accessibility bus answered %q", buf[:n])
	}
}

// Without a cookie the X server is reached with no authorization; without
// the launcher the accessibility bus is absent with its reason.
func TestStructureWithoutCookieOrAccessibilityBus(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{NoA11y: true})
	st, err := testOpts(s.SSHD).DialStructure(context.Background(), sessionTarget(s))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info := st.Info()
	if info.XCookie != nil || info.A11yBus != "" || !strings.Contains(info.A11yAbsent, "AT_SPI_BUS") {
		t.Fatalf("info %+v", info)
	}
	_, err = st.DialA11y(context.Background())
	if e, ok := err.(*wire.Error); !ok || e.Code != wire.NoStructure || e.Next == "" {
		t.Fatalf("DialA11y without a bus: %v", err)
	}
}
