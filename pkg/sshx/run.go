package sshx

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// Output caps per stream. A command may print without limit; what is kept
// is bounded and the rest is counted, never buffered.
const (
	DefaultMaxOutput = 1 << 20  // 1 MiB per stream when the caller names no cap
	MaxOutputLimit   = 64 << 20 // no caller may ask for more per stream
)

// RunOptions shape one command.
type RunOptions struct {
	Cwd       string // "": the login directory (home); "~" and "~/x" are home-relative
	MaxOutput int    // per stream; <= 0: DefaultMaxOutput; clamped to MaxOutputLimit
	// Stdin is fed to the command, then end of file; nil: empty input.
	Stdin []byte
	// Env are NAME=VALUE pairs the command sees. They are exported by the
	// shell before the command (sshd's AcceptEnv would refuse most names
	// sent as channel requests); with Sudo they are passed through env(1)
	// after sudo, whose env_reset would drop them otherwise.
	Env []string
	// Sudo runs the command as root through `sudo -n` (never a password
	// prompt); when sudo refuses, the command does not run (SudoError).
	Sudo bool
}

// SudoError says sudo refused to run the command as root without a
// password (or is not installed); the command did not run.
type SudoError struct {
	Reason string // what sudo (or the shell) said
}

func (e *SudoError) Error() string {
	return fmt.Sprintf("sudo -n refused to run the command as root: %s", e.Reason)
}

// validEnvName: a portable shell variable name.
func validEnvName(n string) bool {
	if n == "" {
		return false
	}
	for i, r := range n {
		if r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

// SplitEnv checks NAME=VALUE pairs: a name of letters, digits and _ not
// starting with a digit, a value without NUL.
func SplitEnv(env []string) ([][2]string, error) {
	out := make([][2]string, 0, len(env))
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !validEnvName(name) {
			return nil, fmt.Errorf("environment entry %q is not NAME=VALUE with a name of letters, digits and _ (not starting with a digit)", kv)
		}
		if strings.ContainsRune(value, 0) {
			return nil, fmt.Errorf("environment value of %s contains a NUL byte", name)
		}
		out = append(out, [2]string{name, value})
	}
	return out, nil
}

// RunResult is what one command did. ExitCode is nil when it was killed
// by a signal (Signal set) or still running at the deadline (TimedOut).
type RunResult struct {
	ExitCode      *int
	Signal        string // "KILL", "TERM"… as SSH names it
	TimedOut      bool
	Stdout        []byte
	Stderr        []byte
	StdoutDropped int64
	StderrDropped int64
	Elapsed       time.Duration
	Note          string
}

// CwdError says the working directory could not be entered; the command
// did not run.
type CwdError struct {
	Cwd    string
	Reason string // what the remote shell said
}

func (e *CwdError) Error() string {
	return fmt.Sprintf("cannot change to directory %q on the remote: %s", e.Cwd, e.Reason)
}

// ConnLostError says the connection ended while a command ran.
type ConnLostError struct{ Err error }

func (e *ConnLostError) Error() string {
	return fmt.Sprintf("the SSH connection ended while the command ran: %v", e.Err)
}
func (e *ConnLostError) Unwrap() error { return e.Err }

// ChannelRefusedError says the server refused a new channel, most often
// because sshd's MaxSessions (10 by default) are all in use on this
// connection.
type ChannelRefusedError struct{ Err *ssh.OpenChannelError }

func (e *ChannelRefusedError) Error() string {
	return fmt.Sprintf("the server refused a new session channel (%v); sshd allows MaxSessions (default 10) at once per connection", e.Err)
}
func (e *ChannelRefusedError) Unwrap() error { return e.Err }

// Run executes command on a fresh exec channel. It starts in the login
// directory with the server's fresh environment; a given cwd is entered
// first with `cd -- <cwd>` (the command does not run if that fails). When
// ctx ends first the command is sent KILL and its channel closed, and the
// result has TimedOut and no status.
func (c *Client) Run(ctx context.Context, command string, o RunOptions) (*RunResult, error) {
	start := time.Now()
	limit := o.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	limit = min(limit, MaxOutputLimit)
	env, err := SplitEnv(o.Env)
	if err != nil {
		return nil, err
	}
	sess, err := c.newSession(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	stdout, stderr := &capWriter{max: limit}, &capWriter{max: limit}
	nonce := newNonce()
	pidLine := newPIDWriter(stderr, nonce+" ")
	sess.Stdout, sess.Stderr = stdout, pidLine
	sess.Stdin = bytes.NewReader(o.Stdin)

	// The first stderr line names the shell's PID, which sshd made a
	// session and process-group leader: at the deadline the whole group
	// is killed, since OpenSSH ignores the channel's signal request.
	script := fmt.Sprintf("printf '%%s %%d\\n' %s $$ >&2\n", nonce)
	inner := ""
	if o.Cwd != "" {
		// The marker line tells a failed cd from the command's own exit 1.
		inner += fmt.Sprintf("cd -- %s || { printf '\\n%%s\\n' %s >&2; exit 1; }\n", quoteCwd(o.Cwd), nonce)
	}
	if o.Sudo {
		// sudo is asked first on its own (-n: never a prompt), so its
		// refusal is told apart from the command's own failure by the
		// marker; then the command runs in a root shell, with the
		// environment given through env(1) past sudo's env_reset. sudo
		// stays in the shell's process group, so the deadline's kill
		// reaches it.
		script += fmt.Sprintf("if ! dvv_sudo=$(sudo -n true 2>&1); then printf '%%s\\n%%s\\n' \"$dvv_sudo\" %s >&2; exit 1; fi\n", sudoMarker(nonce))
		script += "exec sudo -n -- env"
		for _, kv := range env {
			script += " " + ShellQuote(kv[0]+"="+kv[1])
		}
		script += " sh -c " + ShellQuote(inner+command)
	} else {
		for _, kv := range env {
			script += fmt.Sprintf("export %s=%s\n", kv[0], ShellQuote(kv[1]))
		}
		script += inner + command
	}
	if err := sess.Start(script); err != nil {
		return nil, c.connErr(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- sess.Wait() }()

	res := &RunResult{}
	select {
	case err = <-waited:
	case <-ctx.Done():
		sess.Signal(ssh.SIGKILL)
		kill := c.killGroup(pidLine.waitPID(time.Second), o.Sudo)
		sess.Close()
		select { // let the copying goroutines settle before reading buffers
		case <-waited:
		case <-time.After(time.Second):
		}
		res.TimedOut = true
		res.Note = fmt.Sprintf("the deadline (%v) ended the command while it was still running: no exit status exists; %s", time.Since(start).Round(time.Millisecond), kill)
		pidLine.flush()
		res.fill(stdout, stderr, start)
		return res, nil
	case <-c.done:
		return nil, &ConnLostError{Err: c.err}
	}
	pidLine.flush()
	res.fill(stdout, stderr, start)
	var ee *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		zero := 0
		res.ExitCode = &zero
	case errors.As(err, &ee):
		if ee.Signal() != "" {
			res.Signal = ee.Signal()
			res.Note = "killed by signal " + ee.Signal() + "; no exit code exists"
		} else {
			code := ee.ExitStatus()
			res.ExitCode = &code
		}
	case errors.As(err, &missing):
		// A dropped connection closes every channel just before the
		// client notices; give it the moment to tell.
		select {
		case <-c.done:
			return nil, &ConnLostError{Err: c.err}
		case <-time.After(time.Second):
		}
		res.Note = "the server closed the channel without an exit status or signal"
	default:
		return nil, c.connErr(err)
	}
	if o.Sudo && res.ExitCode != nil && *res.ExitCode == 1 {
		marker := "\n" + sudoMarker(nonce) + "\n"
		if bytes.HasSuffix(res.Stderr, []byte(marker)) {
			reason := strings.TrimSpace(string(bytes.TrimSuffix(res.Stderr, []byte(marker))))
			if reason == "" {
				reason = "sudo failed without saying why"
			}
			return nil, &SudoError{Reason: reason}
		}
	}
	if o.Cwd != "" && res.ExitCode != nil && *res.ExitCode == 1 {
		marker := "\n" + nonce + "\n"
		if bytes.HasSuffix(res.Stderr, []byte(marker)) {
			reason := strings.TrimSpace(string(bytes.TrimSuffix(res.Stderr, []byte(marker))))
			if reason == "" {
				reason = "cd failed"
			}
			return nil, &CwdError{Cwd: o.Cwd, Reason: reason}
		}
	}
	return res, nil
}

func (r *RunResult) fill(stdout, stderr *capWriter, start time.Time) {
	r.Stdout, r.StdoutDropped = stdout.result()
	r.Stderr, r.StderrDropped = stderr.result()
	r.Elapsed = time.Since(start)
}

// newSession opens a channel, giving up when ctx ends or the connection
// is gone rather than waiting on a server that does not answer.
func (c *Client) newSession(ctx context.Context) (*ssh.Session, error) {
	type opened struct {
		s   *ssh.Session
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		s, err := c.SSH.NewSession()
		ch <- opened{s, err}
	}()
	select {
	case o := <-ch:
		var oce *ssh.OpenChannelError
		if errors.As(o.err, &oce) {
			return nil, &ChannelRefusedError{Err: oce}
		}
		if o.err != nil {
			return nil, c.connErr(o.err)
		}
		return o.s, nil
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.s != nil {
				o.s.Close()
			}
		}()
		return nil, fmt.Errorf("opening an SSH channel: %w", ctx.Err())
	case <-c.done:
		return nil, &ConnLostError{Err: c.err}
	}
}

// connErr prefers the connection's own death as the reason.
func (c *Client) connErr(err error) error {
	select {
	case <-c.done:
		return &ConnLostError{Err: c.err}
	case <-time.After(50 * time.Millisecond):
		return err
	}
}

// killReport says what was done about a timed-out command's process
// group, and what is not known.
type killReport struct {
	pid      int   // 0: the shell never said its PID
	openErr  error // why no second channel opened
	answered bool  // the kill command finished
	status   int   // its exit status (0: the group was signalled)
}

func (k killReport) String() string {
	const closed = "its channel was closed and a KILL signal request sent on it (OpenSSH ignores those)"
	switch {
	case k.pid <= 1:
		return "the shell never reported its PID, so no process group could be killed; " + closed + ": the command may still be running"
	case k.openErr != nil:
		return fmt.Sprintf("no second channel opened to kill its process group (PID %d): %v; %s: the command may still be running", k.pid, k.openErr, closed)
	case !k.answered:
		return fmt.Sprintf("kill -KILL of its process group (PID %d) was sent but reported no result in time, so whether the command died is not known; %s", k.pid, closed)
	case k.status != 0:
		return fmt.Sprintf("kill -KILL of its process group (PID %d) failed with status %d (the group had already gone, or is not this user's); %s", k.pid, k.status, closed)
	}
	return fmt.Sprintf("its process group (PID %d) was killed (SIGKILL, confirmed by kill) and its channel closed", k.pid)
}

// killGroup kills a timed-out command's process group from a second
// channel, bounded in time so a dying connection cannot hold Run. A
// command run through sudo has root processes in the group, which only
// root may signal: the kill goes through sudo -n too.
func (c *Client) killGroup(pid int, sudo bool) killReport {
	k := killReport{pid: pid}
	if pid <= 1 {
		return k
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s, err := c.newSession(ctx)
	if err != nil {
		k.openErr = err
		return k
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() {
		// POSIX's spelling: dash, a common /bin/sh and login shell, takes
		// no -- after -KILL ("Illegal number"), so the group was never
		// killed there, only the shell.
		kill := fmt.Sprintf("kill -s KILL -- -%d 2>/dev/null || kill -s KILL %d 2>/dev/null", pid, pid)
		if sudo {
			kill = "sudo -n sh -c " + ShellQuote(kill)
		}
		done <- s.Run(kill)
	}()
	select {
	case err := <-done:
		var ee *ssh.ExitError
		switch {
		case err == nil:
			k.answered = true
		case errors.As(err, &ee) && ee.Signal() == "":
			k.answered, k.status = true, ee.ExitStatus()
		}
	case <-ctx.Done():
	}
	return k
}

// pidWriter takes the first line of stderr, "<prefix><pid>", out of the
// stream and passes everything else on.
type pidWriter struct {
	next   io.Writer
	prefix string

	mu    sync.Mutex
	head  []byte
	done  bool
	p     int
	known chan struct{} // closed once the first line is settled
	once  sync.Once
}

func newPIDWriter(next io.Writer, prefix string) *pidWriter {
	return &pidWriter{next: next, prefix: prefix, known: make(chan struct{})}
}

// settle marks the first line as handled; call with mu held.
func (w *pidWriter) settle() {
	w.done = true
	if w.known != nil {
		w.once.Do(func() { close(w.known) })
	}
}

// waitPID waits up to d for the PID line, which the shell prints before
// anything else, so a deadline that falls just after the command started
// still finds its process group.
func (w *pidWriter) waitPID(d time.Duration) int {
	if w.known != nil {
		select {
		case <-w.known:
		case <-time.After(d):
		}
	}
	return w.pid()
}

func (w *pidWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return w.next.Write(b)
	}
	n := len(b)
	w.head = append(w.head, b...)
	i := bytes.IndexByte(w.head, '\n')
	if i < 0 && len(w.head) < len(w.prefix)+24 {
		return n, nil
	}
	w.settle()
	rest := w.head
	if i >= 0 && bytes.HasPrefix(w.head, []byte(w.prefix)) {
		w.p, _ = strconv.Atoi(string(w.head[len(w.prefix):i]))
		rest = w.head[i+1:]
	}
	w.head = nil
	if len(rest) > 0 {
		w.next.Write(rest)
	}
	return n, nil
}

// flush passes on a first line that never completed.
func (w *pidWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done && len(w.head) > 0 {
		w.next.Write(w.head)
	}
	w.head = nil
	w.settle()
}

func (w *pidWriter) pid() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.p
}

// capWriter keeps the first max bytes and counts the rest.
type capWriter struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped int64
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	room := w.max - len(w.buf)
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		w.buf = append(w.buf, p[:room]...)
	}
	w.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

func (w *capWriter) result() ([]byte, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf), w.dropped
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteCwd quotes a directory, letting a leading ~ mean $HOME.
func quoteCwd(cwd string) string {
	switch {
	case cwd == "~":
		return `"$HOME"`
	case strings.HasPrefix(cwd, "~/"):
		return `"$HOME"/` + ShellQuote(cwd[2:])
	default:
		return ShellQuote(cwd)
	}
}

// sudoMarker ends stderr when sudo refused (it differs from the cd
// marker, which is the nonce alone).
func sudoMarker(nonce string) string { return nonce + "-sudo" }

func newNonce() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "dvv-cwd-failed-" + hex.EncodeToString(b)
}
