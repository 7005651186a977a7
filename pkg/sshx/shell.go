package sshx

import (
	"context"
	"errors"
	"io"

	"golang.org/x/crypto/ssh"
)

// ShellOptions shape an interactive PTY session.
type ShellOptions struct {
	Term string // TERM; default xterm-256color
	Cols int    // default 120
	Rows int    // default 40
}

// Shell is a login shell on a PTY. Read gives the terminal's output (the
// PTY merges stdout and stderr); Write types into it.
type Shell struct {
	sess   *ssh.Session
	stdin  io.WriteCloser
	stdout io.Reader
}

// Shell opens a PTY and starts the user's login shell on it.
func (c *Client) Shell(ctx context.Context, o ShellOptions) (*Shell, error) {
	if o.Term == "" {
		o.Term = "xterm-256color"
	}
	if o.Cols <= 0 {
		o.Cols = 120
	}
	if o.Rows <= 0 {
		o.Rows = 40
	}
	sess, err := c.newSession(ctx)
	if err != nil {
		return nil, err
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		sess.Close()
		return nil, err
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		sess.Close()
		return nil, err
	}
	modes := ssh.TerminalModes{ssh.ECHO: 1, ssh.TTY_OP_ISPEED: 38400, ssh.TTY_OP_OSPEED: 38400}
	if err := sess.RequestPty(o.Term, o.Rows, o.Cols, modes); err != nil {
		sess.Close()
		return nil, c.connErr(err)
	}
	if err := sess.Shell(); err != nil {
		sess.Close()
		return nil, c.connErr(err)
	}
	return &Shell{sess: sess, stdin: stdin, stdout: stdout}, nil
}

func (s *Shell) Read(p []byte) (int, error)  { return s.stdout.Read(p) }
func (s *Shell) Write(p []byte) (int, error) { return s.stdin.Write(p) }

// Resize tells the remote PTY its new size.
func (s *Shell) Resize(cols, rows int) error { return s.sess.WindowChange(rows, cols) }

// Wait blocks until the shell ends: its exit code, or the signal that
// killed it, or exited false when the channel closed without either.
func (s *Shell) Wait() (code int, signal string, exited bool) {
	err := s.sess.Wait()
	var ee *ssh.ExitError
	switch {
	case err == nil:
		return 0, "", true
	case errors.As(err, &ee):
		if ee.Signal() != "" {
			return 128 + signalNumber(ee.Signal()), ee.Signal(), true
		}
		return ee.ExitStatus(), "", true
	default:
		return 0, "", false
	}
}

// Close ends the session.
func (s *Shell) Close() error { return s.sess.Close() }

// signalNumber maps SSH's signal names to Linux numbers, for the shell
// convention 128+n.
func signalNumber(name string) int {
	switch name {
	case "HUP":
		return 1
	case "INT":
		return 2
	case "QUIT":
		return 3
	case "ILL":
		return 4
	case "ABRT":
		return 6
	case "FPE":
		return 8
	case "KILL":
		return 9
	case "USR1":
		return 10
	case "SEGV":
		return 11
	case "USR2":
		return 12
	case "PIPE":
		return 13
	case "ALRM":
		return 14
	case "TERM":
		return 15
	}
	return 0
}
