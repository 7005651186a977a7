package daemon

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestAcceptErrorsAreWaitedOut: out of descriptors (and any error but a
// closed listener) means pause and retry, the pause growing to 1 s; a
// closed listener or a stopping dvvd ends the loop.
func TestAcceptErrorsAreWaitedOut(t *testing.T) {
	emfile := &net.OpError{Op: "accept", Net: "unix", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	var pause time.Duration
	logged := 0
	log := func(string, ...any) { logged++ }
	done := make(chan struct{})
	var pauses []time.Duration
	for i := 0; i < 4; i++ {
		if !acceptRetry(emfile, &pause, done, log) {
			t.Fatalf("EMFILE ended the accept loop")
		}
		pauses = append(pauses, pause)
	}
	if fmt.Sprint(pauses) != "[5ms 10ms 20ms 40ms]" {
		t.Fatalf("pauses %v, want doubling from 5ms", pauses)
	}
	if logged != 1 {
		t.Fatalf("logged %d times; want once at the first pause", logged)
	}
	if acceptRetry(fmt.Errorf("accept: %w", net.ErrClosed), &pause, done, log) {
		t.Fatal("a closed listener did not end the loop")
	}
	close(done)
	if acceptRetry(emfile, &pause, done, log) {
		t.Fatal("a stopping dvvd did not end the loop")
	}
}
