package system_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// The cost of listing a desktop's windows over the SSH sidecar (sshd on
// 127.0.0.1, so the figures are dvv's own work and the round trips, not a
// network's), beside wmctrl asking the X server directly. Ten zenity
// windows under openbox.

func windowsBed(b *testing.B) (*testbed.DesktopSession, *daemon, string) {
	b.Helper()
	s := testbed.StartDesktopSession(b, testbed.DesktopSessionOptions{Cookie: true})
	for i := range 10 {
		title := fmt.Sprintf("bench-%d", i)
		s.Program(b, title, "zenity", "--info", "--title", title, "--text", title)
	}
	d := startDaemonIn(b, "", s.SSHD.Home)
	limb := openDesktopWithSidecarB(b, d, s)
	d.must("windows", limb) // the sidecar is found once, then kept
	return s, d, limb
}

func openDesktopWithSidecarB(b *testing.B, d *daemon, s *testbed.DesktopSession) string {
	b.Helper()
	d.must("hosts", "add", "desk", "--address", "127.0.0.1", "--port", fmt.Sprint(s.Port), "--protocol", "vnc",
		"--ssh-port", fmt.Sprint(s.SSHD.Port), "--ssh-user", s.SSHD.User)
	r := d.must("open", "desk")
	return r.stdout[:len(r.stdout)-1]
}

func BenchmarkWindowsClientHeld(b *testing.B) {
	_, d, limb := windowsBed(b)
	ctx := context.Background()
	c, err := client.Dial(ctx, d.socket, client.Options{Name: "shell", Session: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ResetTimer()
	for b.Loop() {
		r, err := c.Windows(ctx, wire.WindowsArgs{Target: wire.Target{LimbID: limb}})
		if err != nil || len(r.Windows.Windows) != 10 {
			b.Fatal(err, r)
		}
	}
}

func BenchmarkWindowsDvvBinary(b *testing.B) {
	_, d, limb := windowsBed(b)
	b.ResetTimer()
	for b.Loop() {
		if r := d.dvv("windows", limb, "--json"); r.code != 0 {
			b.Fatal(r)
		}
	}
}

func BenchmarkWindowsWmctrlLocal(b *testing.B) {
	s, _, _ := windowsBed(b)
	b.ResetTimer()
	for b.Loop() {
		s.Wmctrl(b, "-l", "-p", "-G")
	}
}
