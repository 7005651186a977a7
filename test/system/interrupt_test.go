package system_test

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// dvv catches Ctrl+C only for commands that can take time (it costs every
// call otherwise): `dvv events` still ends cleanly, exit 0, on SIGINT.
func TestInterruptEndsEventsCleanly(t *testing.T) {
	d := startDaemon(t, "")
	cmd := exec.Command(dvvBin, "events")
	cmd.Env = append(append([]string{}, d.env...), "DVV_SESSION=shell-int")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !eventsSubscribed(stderr, 30*time.Second) {
		cmd.Process.Kill()
		t.Fatal("dvv events did not subscribe")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("dvv events after Ctrl+C: %v (want exit 0: the signal cancels its context)", err)
	}
}
