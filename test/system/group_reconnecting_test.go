package system_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestGroupOpenOfAReconnectingLimb: a limb whose server went away keeps
// redialling with a growing backoff and shows the last dial's error. When
// the server is back and a group is opened on that address, the group
// tries now and gets the connection; it neither answers the error of a dial
// made before it was asked nor waits out the backoff.
func TestGroupOpenOfAReconnectingLimb(t *testing.T) {
	t.Parallel()
	port := testbed.FreePort(t)
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240, Port: port})
	d := startDaemon(t, "")
	addr := "127.0.0.1:" + strconv.Itoa(port)
	id := strings.TrimSpace(d.must("open", "127.0.0.1", "--protocol", "vnc", "--port", strconv.Itoa(port), "--wait").stdout)

	syscall.Kill(x.Server.Cmd.Process.Pid, syscall.SIGKILL)
	// Four failed dials: the backoff is 4 s or more, so the limb's own
	// next try is unlikely to come before the group's.
	testbed.Eventually(t, 30*time.Second, "the limb to be reconnecting after four failed dials", func() bool {
		return reconnecting(t, d, id) && strings.Count(dialFailures(d.log(), id), "\n") >= 4
	})
	testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240, Port: port})
	if !reconnecting(t, d, id) {
		t.Skip("the limb reconnected on its own before the group was asked for: nothing to see this time")
	}
	r := d.dvv("group", "open", "--address", addr, "--protocol", "vnc", "--json")
	if r.code != 0 {
		t.Fatalf("group open of a reconnecting limb whose server is back: %v", r)
	}
	if st := limbState(t, d, id); st != "connected" {
		t.Fatalf("the member is %s, want connected", st)
	}
}

func limbState(t *testing.T, d *daemon, id string) string {
	t.Helper()
	var ans struct {
		Observation struct {
			State string `json:"state"`
		} `json:"observation"`
	}
	r := d.must("status", id, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &ans); err != nil || ans.Observation.State == "" {
		t.Fatalf("status --json: %v: %s", err, r.stdout)
	}
	return ans.Observation.State
}

func reconnecting(t *testing.T, d *daemon, id string) bool {
	return limbState(t, d, id) == "reconnecting"
}

// dialFailures is the log's lines about the limb's failed dials.
func dialFailures(log, id string) string {
	var out strings.Builder
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "limb="+id) && strings.Contains(line, "dial failed") {
			out.WriteString(line + "\n")
		}
	}
	return out.String()
}
