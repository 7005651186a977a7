package ssh

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/vt"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/sshx"
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

// terminal is a login shell on a PTY behind a VT emulator, with a raw
// scrollback ring, on one warm SSH connection that also serves run and
// files.
type terminal struct {
	conn  *conn
	shell *sshx.Shell

	mu       sync.Mutex
	emu      *vt.Emulator
	ring     *Ring
	changed  chan struct{}
	lastOut  time.Time
	title    string
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
	emu := vt.NewEmulator(cols, rows)
	// The raw ring is the scrollback; the emulator keeps only a token one.
	emu.SetScrollbackSize(1)
	t := &terminal{conn: c, shell: sh, emu: emu, ring: NewRing(o.Scrollback),
		changed: make(chan struct{}), lastOut: time.Now(), cols: cols, rows: rows, ended: make(chan struct{})}
	emu.SetCallbacks(vt.Callbacks{Title: func(s string) { t.title = s }})
	go t.pumpOutput()
	go t.pumpReplies()
	go t.releaseWhenDropped()
	return t, nil
}

// pumpOutput feeds the remote's output to the ring and the emulator.
func (t *terminal) pumpOutput() {
	buf := make([]byte, 32<<10)
	for {
		n, err := t.shell.Read(buf)
		if n > 0 {
			t.mu.Lock()
			t.ring.Write(buf[:n])
			t.emu.Write(buf[:n])
			t.lastOut = time.Now()
			t.notifyLocked()
			t.mu.Unlock()
		}
		if err != nil {
			break
		}
	}
	code, _, exited := t.shell.Wait()
	t.mu.Lock()
	t.exited, t.exitCode = exited, code
	if !exited { // the channel closed without a status: the connection died
		t.exited, t.exitCode = false, 0
	}
	t.notifyLocked()
	t.mu.Unlock()
	close(t.ended)
}

// pumpReplies sends the emulator's answers to terminal queries (cursor
// position, device attributes) back to the remote program, which waits
// for them.
func (t *terminal) pumpReplies() {
	io.Copy(t.shell, t.emu)
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
	t.shell.Close()
	// Closing the emulator's reply pipe ends pumpReplies. (Emulator.Close
	// would flip a flag its Read checks without a lock.)
	if c, ok := t.emu.InputPipe().(io.Closer); ok {
		c.Close()
	}
	return t.conn.close()
}

func (t *terminal) Signals() wire.Signals {
	t.mu.Lock()
	title := t.title
	t.mu.Unlock()
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

// Grid is the emulator's visible screen, trailing blanks trimmed, and the
// cursor (column, row; zero based).
func (t *terminal) Grid() ([]string, int, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rows := make([]string, t.rows)
	var b strings.Builder
	for y := 0; y < t.rows; y++ {
		b.Reset()
		for x := 0; x < t.cols; x++ {
			c := t.emu.CellAt(x, y)
			switch {
			case c == nil:
				b.WriteByte(' ')
			case c.IsZero(): // the second half of a wide character
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	p := t.emu.CursorPosition()
	return rows, p.X, p.Y
}

func (t *terminal) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
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
	t.mu.Lock()
	t.emu.Resize(cols, rows)
	t.cols, t.rows = cols, rows
	t.mu.Unlock()
	return t.conn.opError(t.shell.Resize(cols, rows), "resizing the terminal")
}

func (t *terminal) Run(ctx context.Context, command, cwd string, maxOutput int) (*wire.RunResult, error) {
	return t.conn.run(ctx, command, cwd, maxOutput)
}

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
