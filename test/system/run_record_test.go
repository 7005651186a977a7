package system_test

import (
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/recording"
)

// TestRunSaysHowItEndedOnce: a run its deadline ends prints that fact
// once on stderr (dvvd's note), not again as dvv's own line, and exits 124.
func TestRunSaysHowItEndedOnce(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)
	r := d.dvv("run", limb, "--timeout", "1s", "sleep 10")
	if r.code != 124 {
		t.Fatalf("want exit 124: %v", r)
	}
	if n := strings.Count(r.stderr, "deadline"); n != 1 {
		t.Errorf("stderr says the deadline %d times; want once:\n%s", n, r.stderr)
	}
	r = d.dvv("run", limb, "--timeout", "10s", "kill -KILL $$")
	if n := strings.Count(strings.ToLower(r.stderr), "killed"); r.code != 128+9 || n != 1 {
		t.Errorf("a killed run: exit %d, says killed %d times; want 137, once:\n%s", r.code, n, r.stderr)
	}
}

// TestCastHoldsRunOutput: a terminal recording holds what a `dvv run`
// printed (it goes over its own channel, never through the terminal the
// recording follows), played back through the terminal emulator the export
// uses, and not the command line.
func TestCastHoldsRunOutput(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)
	rec := response(t, d.must("record", "start", limb, "--json")).Recordings[0]
	if r := d.dvv("run", limb, "--timeout", "10s", "printf 'out-%s\\n' $((6*7)); echo err-$((7*6)) >&2; exit 3"); r.code != 3 {
		t.Fatal(r)
	}
	if r := d.dvv("run", limb, "--timeout", "10s", "echo secret-cmd >/dev/null"); r.code != 0 {
		t.Fatal(r)
	}
	d.must("record", "stop", limb)
	_, evs, err := recording.ReadCast(rec.Path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, e := range evs {
		if e.Code == "o" {
			out.WriteString(e.Data)
		}
	}
	got := out.String()
	for _, want := range []string{"out-42\r\n", "err-42\r\n", "exit 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("the cast's output lacks %q:\n%q", want, got)
		}
	}
	if strings.Contains(got, "6*7") || strings.Contains(got, "secret-cmd") {
		t.Errorf("the cast holds a command line:\n%q", got)
	}
}
