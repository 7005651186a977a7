package cli

import (
	"fmt"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Exit statuses of the CLI's own, beyond the wire error classes
// (wire.ExitOK … wire.ExitTrust, 0–10).
const (
	// ExitNotSettled: `dvv wait` reached its deadline before the condition
	// held. dvvd answers that as an ordinary success (settled: false); a
	// script still needs to tell it from "it happened".
	ExitNotSettled = 11

	// ExitNotOnScreen: `dvv find` read the screen and the text is not on
	// it. dvvd answers that as an ordinary success (no matches); a script's
	// `if dvv find …` needs a status that says so. (12 is doctor's.)
	ExitNotOnScreen = 13
)

// Statuses `dvv run` uses when the remote command has no exit code of its own.
const (
	ExitRunTimedOut = 124 // the deadline ended the command (as timeout(1))
	ExitRunSignal   = 128 // plus the signal number, as shells report it
	ExitRunUnknown  = 255 // ended without status or known signal (as ssh(1))
)

// exitStatus ends the command with a status that is not an error class
// (a remote exit code, a wait that did not settle).
type exitStatus struct {
	code int
	msg  string // printed to stderr when not empty
}

func (s *exitStatus) Error() string { return fmt.Sprintf("exit status %d: %s", s.code, s.msg) }

// usageError is a mistake on the command line: exit status 2, nothing was sent.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usageErr(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// localErr is a failure on the CLI's own side (a local file), classed like
// dvvd's codes so the exit status still says what went wrong.
func localErr(code wire.Code, format string, args ...any) error {
	return wire.Errorf(code, format, args...)
}
