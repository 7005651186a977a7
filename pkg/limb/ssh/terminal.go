package ssh

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/sshx"
	"github.com/dvvhq/dvv/pkg/vtscreen"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Terminal defaults.
const (
	DefaultCols = 120
	DefaultRows = 40
	DefaultTerm = "xterm-256color"
	// DefaultReadMax bounds one Read when the caller names no maximum.
	DefaultReadMax = 256 << 10
)

// terminal is a login shell on a PTY behind a VT screen, with a raw
// scrollback ring, on one warm SSH connection that also serves run and
// files.
//
// Two locks: mu guards the small state every status and limbs answer
// reads (exit, last output, size, the ring); screenMu guards the screen,
// which may work for a while on a burst of output. Nothing waits for
// screenMu while holding mu.
type terminal struct {
	conn  *conn
	shell *sshx.Shell
	facts *wire.GuestFacts // asked once at connect

	screenMu sync.Mutex
	screen   *vtscreen.Screen

	mu       sync.Mutex
	ring     *Ring
	changed  chan struct{}
	lastOut  time.Time
	exited   bool
	exitCode int
	cols     int
	rows     int
	ended    chan struct{} // closed when the shell ended or its connection dropped
}

func newTerminal(ctx context.Context, c *conn, o Options) (*terminal, error) {
	cols, rows := o.Cols, o.Rows
	if cols <= 0 {
		cols = DefaultCols
	}
	if rows <= 0 {
		rows = DefaultRows
	}
	sh, err := c.client.Shell(ctx, sshx.ShellOptions{Term: DefaultTerm, Cols: cols, Rows: rows})
	if err != nil {
		return nil, err
	}
	// The screen answers the remote program's queries (cursor position,
	// device attributes) straight into the PTY: it waits for them.
	t := &terminal{conn: c, shell: sh, screen: vtscreen.New(cols, rows, sh), ring: NewRing(o.Scrollback),
		changed: make(chan struct{}), lastOut: time.Now(), cols: cols, rows: rows, ended: make(chan struct{})}
	go t.pumpOutput()
	go t.releaseWhenDropped()
	return t, nil
}

// pumpOutput feeds the remote's output to the ring, then the screen, then
// wakes waiters. Ring first: whoever sees text on the screen (a wait polls
// it) then finds it in term_read too. Waiters are woken last, so they find
// it in both. The screen is written outside t.mu, since it may block
// answering a query into the PTY.
func (t *terminal) pumpOutput() {
	buf := make([]byte, 32<<10)
	for {
		n, err := t.shell.Read(buf)
		if n > 0 {
			t.mu.Lock()
			t.ring.Write(buf[:n])
			t.mu.Unlock()
			t.screenMu.Lock()
			t.screen.Write(buf[:n])
			t.screenMu.Unlock()
			t.mu.Lock()
			t.lastOut = time.Now()
			t.notifyLocked()
			t.mu.Unlock()
		}
		if err != nil {
			break
		}
	}
	code, _, exited := t.shell.Wait()
	if !exited {
		// The channel closed without a status: usually the connection
		// died. Let its cause settle before Done, since Err reads it (a
		// protocol break is permanent, a drop is not), and end a
		// connection that is somehow still up: the session is over.
		select {
		case <-t.conn.client.Done():
		case <-time.After(2 * time.Second):
			t.conn.close()
		}
	}
	t.mu.Lock()
	t.exited, t.exitCode = exited, code
	if !exited { // the channel closed without a status: the connection died
		t.exited, t.exitCode = false, 0
	}
	t.notifyLocked()
	t.mu.Unlock()
	close(t.ended)
}

// releaseWhenDropped frees what the session held once its connection has
// ended, whether or not anyone calls Close: the daemon forgets a dropped
// session and dials a new one.
func (t *terminal) releaseWhenDropped() {
	<-t.conn.client.Done()
	t.Close()
}

func (t *terminal) notifyLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// Done closes when the shell exits (Exited says so) as well as when the
// connection drops (releaseWhenDropped closes the shell, which ends
// pumpOutput): the session is over either way.
func (t *terminal) Done() <-chan struct{} { return t.ended }
func (t *terminal) Err() error            { return t.conn.err() }
func (t *terminal) Close() error {
	t.shell.Close() // first: a reply blocked on the PTY fails and frees the screen
	t.screenMu.Lock()
	t.screen.Close()
	t.screenMu.Unlock()
	return t.conn.close()
}

func (t *terminal) Signals() wire.Signals {
	title := t.screen.Title()
	absent := func(why string) wire.Signal { return wire.Signal{State: wire.SignalAbsent, Reason: why} }
	return wire.Signals{
		wire.SigExitStatus:      {State: wire.SignalLive},
		wire.SigTitle:           {State: wire.SignalLive, Value: map[string]any{"title": title}},
		wire.SigBell:            absent("terminal limbs do not report the bell"),
		wire.SigClipboard:       absent("a terminal limb has no clipboard"),
		wire.SigLEDState:        absent("a terminal has no keyboard LEDs"),
		wire.SigWindowStructure: absent("window structure is never available"),
		wire.SigCursorShape:     absent("a terminal limb has no pointer"),
		wire.SigDesktopResize:   absent("the terminal size is fixed by dvv"),
		wire.SigKeyScancodes:    absent("a terminal takes bytes, not key codes"),
		wire.SigContinuous:      absent("terminal output is streamed, not framed"),
	}
}

// Send writes bytes to the PTY.
func (t *terminal) Send(b []byte) error {
	t.mu.Lock()
	exited, code := t.exited, t.exitCode
	t.mu.Unlock()
	if exited {
		return wire.Errorf(wire.NotConnected, "the shell on this terminal exited with status %d; nothing was sent. Open a fresh session (slot > 0) or use run.", code)
	}
	if err := t.conn.client.Err(); err != nil {
		return t.conn.opError(err, "sending to the terminal")
	}
	if _, err := t.shell.Write(b); err != nil {
		return t.conn.opError(err, "sending to the terminal")
	}
	return nil
}

// Read serves the scrollback ring: see Ring.Read.
func (t *terminal) Read(since uint64, max int) ([]byte, uint64, int64, error) {
	if max <= 0 {
		max = DefaultReadMax
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	data, next, lost, err := t.ring.Read(since, max)
	if err != nil {
		return nil, next, 0, badRequest("%v; pass a cursor from an earlier term_read, or none to read from the start", err)
	}
	return data, next, lost, nil
}

// Grid is the visible screen, trailing blanks trimmed, and the cursor
// (column, row; zero based).
func (t *terminal) Grid() ([]string, int, int) {
	t.screenMu.Lock()
	defer t.screenMu.Unlock()
	return t.screen.Text()
}

func (t *terminal) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// End is the cursor just past the latest output.
func (t *terminal) End() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ring.Total()
}

func (t *terminal) LastOutput() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastOut
}

func (t *terminal) Exited() (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exitCode, t.exited
}

func (t *terminal) Size() (int, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cols, t.rows
}

// Resize changes the PTY and the emulator to cols x rows.
func (t *terminal) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 || cols > 1000 || rows > 1000 {
		return badRequest("terminal size %dx%d is out of range (1..1000)", cols, rows)
	}
	t.screenMu.Lock()
	t.screen.Resize(cols, rows)
	t.screenMu.Unlock()
	t.mu.Lock()
	t.cols, t.rows = cols, rows
	t.mu.Unlock()
	return t.conn.opError(t.shell.Resize(cols, rows), "resizing the terminal")
}

func (t *terminal) Run(ctx context.Context, command, cwd string, maxOutput int) (*wire.RunResult, error) {
	return t.conn.run(ctx, limb.RunSpec{Command: command, Cwd: cwd, MaxOutput: maxOutput})
}

func (t *terminal) RunWith(ctx context.Context, r limb.RunSpec) (*wire.RunResult, error) {
	return t.conn.run(ctx, r)
}

// Facts are the machine's facts, asked when the connection opened.
func (t *terminal) Facts() *wire.GuestFacts { return t.facts }

func (t *terminal) Files(ctx context.Context) (limb.Files, error) { return t.conn.files(ctx) }

// runResult converts sshx's result for the wire: text when UTF-8, base64
// otherwise.
func runResult(r *sshx.RunResult, cwd string) *wire.RunResult {
	out := &wire.RunResult{ExitCode: r.ExitCode, TimedOut: r.TimedOut, StdoutDropped: r.StdoutDropped,
		StderrDropped: r.StderrDropped, Cwd: cwd, ElapsedMs: r.Elapsed.Milliseconds(), Note: r.Note}
	if r.Signal != "" {
		out.Signal = "SIG" + r.Signal
	}
	out.Stdout, out.StdoutBase64 = textOrBase64(r.Stdout)
	out.Stderr, out.StderrBase64 = textOrBase64(r.Stderr)
	var notes []string
	if out.Note != "" {
		notes = append(notes, out.Note)
	}
	if r.StdoutDropped > 0 || r.StderrDropped > 0 {
		notes = append(notes, fmt.Sprintf("output truncated: %d stdout and %d stderr bytes dropped", r.StdoutDropped, r.StderrDropped))
	}
	if out.StdoutBase64 != "" || out.StderrBase64 != "" {
		notes = append(notes, "output that is not valid UTF-8 is in stdoutBase64/stderrBase64, byte for byte")
	}
	out.Note = strings.Join(notes, "; ")
	return out
}

func textOrBase64(b []byte) (string, string) {
	if utf8.Valid(b) {
		return string(b), ""
	}
	return "", base64.StdEncoding.EncodeToString(b)
}
