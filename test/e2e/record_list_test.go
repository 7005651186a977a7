package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestRecordStopAndListAgree: what `record stop` answers about a recording
// (its acts, start, size) is what `record list` answers about the same file
// afterwards, and both are what the files hold: one line per act in the act
// log. Acts sent just before the stop are counted too.
func TestRecordStopAndListAgree(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"}).LimbID
	target := wire.Target{LimbID: id}
	if w := must(t, c, wire.WaitArgs{Target: target, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatal("ssh limb did not connect")
	}
	started := must(t, c, wire.RecordArgs{Target: target, Action: "start"}).Recordings[0]
	must(t, c, wire.ControlArgs{Target: target, Action: "acquire"}) // act 1
	const sends = 19
	for i := 0; i < sends; i++ {
		must(t, c, wire.TermSendArgs{Target: target, Text: strp(fmt.Sprintf("echo act-%d\n", i))})
	}
	if w := must(t, c, wire.WaitArgs{Target: target, Until: "text", Text: strp(fmt.Sprintf("act-%d", sends-1)), TimeoutMs: intp(10000)}); !w.Wait.Settled {
		t.Fatal("the shell did not echo the last act")
	}
	stopped := must(t, c, wire.RecordArgs{Target: target, Action: "stop"}).Recordings[0]
	onDisk := len(readActs(t, stopped.ActsPath))
	if onDisk != sends+1 {
		t.Fatalf("the act log holds %d acts, want %d", onDisk, sends+1)
	}
	if stopped.Acts != onDisk || stopped.StartedMs != started.StartedMs || stopped.Active {
		t.Errorf("record stop: %+v; the act log holds %d, the start answered startedMs %d", stopped, onDisk, started.StartedMs)
	}
	st, err := os.Stat(stopped.Path)
	if err != nil || stopped.Bytes != st.Size() {
		t.Errorf("record stop says %d bytes, the file has %v (%v)", stopped.Bytes, st.Size(), err)
	}

	// Listed at once, and again by a new limb for the same machine (what
	// it knows of the recording is only what the files say).
	agree := func(when string) {
		t.Helper()
		list := must(t, c, wire.RecordArgs{Target: target, Action: "list"}).Recordings
		if len(list) != 1 {
			t.Fatalf("record list %s: %+v", when, list)
		}
		listed := list[0]
		if listed.Path != stopped.Path || listed.ActsPath != stopped.ActsPath || listed.Acts != stopped.Acts ||
			listed.StartedMs != stopped.StartedMs || listed.Bytes != stopped.Bytes || listed.Format != stopped.Format || listed.Active {
			t.Fatalf("record list %s disagrees with record stop:\nstop: %+v\nlist: %+v", when, stopped, listed)
		}
	}
	agree("right after the stop")
	must(t, c, wire.CloseArgs{LimbID: id})
	if again := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"}).LimbID; again != id {
		t.Fatalf("reopened as %s, not %s", again, id)
	}
	agree("by the reopened limb")
}
