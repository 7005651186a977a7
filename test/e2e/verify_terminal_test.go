package e2e

import (
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTerminalKeyOnAPrintingTerminalIsNotVerified: a key that sends no
// text is verified by the output that follows it, unless the terminal was
// already printing: a loop ticking every 100 ms prints whatever the key
// does, so its output proves nothing and the answer says why. On a quiet
// prompt the same key (Enter: a new prompt) is verified.
func TestTerminalKeyOnAPrintingTerminalIsNotVerified(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	r := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"})
	id := r.LimbID
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatalf("ssh limb: %+v", w.Observation)
	}
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	quiet := func() {
		t.Helper()
		if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: intp(800), TimeoutMs: intp(10000)}); !w.Wait.Settled {
			t.Fatal("the terminal never went quiet")
		}
	}
	quiet()
	enter := must(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "Enter"}).Verification
	if enter == nil || enter.Status != wire.VerifyVerified {
		t.Fatalf("Enter on a quiet prompt: %+v", enter)
	}

	must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: id}, Text: strp("while :; do echo tick; sleep 0.1; done\n")})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: strp("tick"), TimeoutMs: intp(10000)}); !w.Wait.Settled {
		t.Fatal("the loop never printed")
	}
	f5 := must(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "F5"}).Verification
	if f5 == nil || f5.Status != wire.VerifyUnverified || !strings.Contains(f5.Reason, "already printing") {
		t.Fatalf("F5 while a loop prints: %+v, want unverified because the terminal was already printing", f5)
	}
	must(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "ctrl+c"})
}
