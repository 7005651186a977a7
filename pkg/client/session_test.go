package client

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestShellName(t *testing.T) {
	for session, want := range map[string]string{"": "shell", "pid:x:1": "shell", "agent": "agent", "ci-build-7": "ci-build-7"} {
		if got := ShellName(session); got != want {
			t.Errorf("ShellName(%q) = %q, want %q", session, got, want)
		}
	}
}

// A pid session is named after the process it follows, so that a lease's
// holder says which session holds it.
func TestShellNameNamesTheProcess(t *testing.T) {
	pid := os.Getpid()
	got := ShellName(fmt.Sprintf("pid:%d:%s", pid, ProcessStart(pid)))
	if !strings.HasPrefix(got, fmt.Sprintf("client.test[%d]", pid)) {
		t.Errorf("ShellName of this test's pid = %q, want client.test[%d]…", got, pid)
	}
}
