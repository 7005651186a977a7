package client

import "testing"

func TestShellName(t *testing.T) {
	for session, want := range map[string]string{"": "shell", "pid:42:123": "shell", "agent": "agent", "ci-build-7": "ci-build-7"} {
		if got := ShellName(session); got != want {
			t.Errorf("ShellName(%q) = %q, want %q", session, got, want)
		}
	}
}
