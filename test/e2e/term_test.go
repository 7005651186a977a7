package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTerminalHostileSequencesKeepDaemonUp: what any program on the
// remote machine may print — REP, CHT and CBT with counts near 2^31, a
// scroll region past the screen's edge followed by an insert — must
// neither stall the terminal for minutes nor take dvvd down, and status
// and limbs from another client keep answering meanwhile.
func TestTerminalHostileSequencesKeepDaemonUp(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	other := dial(t, d, "observer")
	r := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatalf("ssh limb: %+v", w.Observation)
	}
	id := r.LimbID
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})

	// Another client polls status and limbs the whole time; each must
	// answer (a stalled daemon answers neither).
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var pollErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, a := range []wire.Args{wire.StatusArgs{Target: wire.Target{LimbID: id}}, wire.LimbsArgs{}} {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				_, err := client.Call[wiretest.Response](ctx, other, a)
				cancel()
				if err != nil && client.Code(err) != wire.LimbGone {
					pollErr = err
					return
				}
			}
		}
	}()

	must(t, c, wire.TermSendArgs{
		Target: wire.Target{LimbID: id},
		Text: strp(
			`printf 'A\033[2147483646b'; printf '\033[2147483646I\033[2147483646Z\033[2147483646@'; ` +
				`printf '\033[1;999r\033[L\033[?69h\033[2;999s\033[M\033[r\033[?69l'; echo; echo DONE-$((6*7))` + "\n"),
	})
	w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: strp("DONE-42"), TimeoutMs: intp(25000)})
	close(stop)
	wg.Wait()
	if pollErr != nil {
		t.Fatalf("status/limbs from another client: %v", pollErr)
	}
	if !w.Wait.Settled {
		t.Fatal("the terminal never showed DONE-42: the emulator is stuck on a count")
	}
	sc := must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}})
	full := strings.Repeat("A", 120)
	found := false
	for _, row := range sc.Screen.Text {
		found = found || row == full
	}
	if !found {
		t.Fatalf("no row full of A (REP fills the screen):\n%s", strings.Join(sc.Screen.Text, "\n"))
	}
}
