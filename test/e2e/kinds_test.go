package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTerminalHalvesOfAnyKindOps: type, key and screen serve a terminal
// with their terminal half (bytes to the PTY, the text grid), proven on
// the server side by the file the typed command creates.
func TestTerminalHalvesOfAnyKindOps(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"}).LimbID
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatalf("ssh limb: %+v", w.Observation)
	}
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "idle", QuietMs: intp(300), TimeoutMs: intp(10000)})

	target := filepath.Join(s.RemoteHome, "typed-by-kind")
	must(t, c, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: strp("touch " + target + " && echo kind-half-$((6*7))")})
	must(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "Enter"})
	testbed.Eventually(t, 10*time.Second, "the typed command created "+target, func() bool {
		_, err := os.Stat(target)
		return err == nil
	})
	// The shell's output, not the echoed command line: $((6*7)) is 42.
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: strp("kind-half-42"), TimeoutMs: intp(10000)}); !w.Wait.Settled {
		t.Fatal("the command's output never showed")
	}
	scr := must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}}).Screen
	if scr.Mime != "text/plain" || !strings.Contains(strings.Join(scr.Text, "\n"), "kind-half-42") {
		t.Fatalf("terminal screen: mime %q, rows %q", scr.Mime, scr.Text)
	}
}
