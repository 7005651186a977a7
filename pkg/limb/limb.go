// Package limb defines what the daemon needs from one live connection to a
// machine, whatever the protocol: a Desktop (VNC, RDP) feeding a shared
// framebuffer, or a Terminal (SSH). Adapters in sub-packages (limb/vnc,
// limb/rdp, limb/ssh) wrap the stand-alone protocol clients and translate
// their failures into coded *wire.Error values; the daemon only sees these
// interfaces.
package limb

import (
	"context"
	"image"
	"io"
	"io/fs"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Target is where and how to connect. Secrets stay inside dvvd.
type Target struct {
	Protocol string // wire.ProtoVNC, ProtoRDP, ProtoSSH
	Address  string // host name or IP; for VNC also ws:// or wss:// URLs
	Port     int
	Slot     int
	User     string
	Domain   string
	Password string // from the keychain; never logged
	Perceive bool
	// Record: the saved host asks that every session be recorded.
	Record bool

	// SSH sidecar for desktop limbs' files (0/"" = defaults).
	SSHPort int
	SSHUser string

	// Machine is the hypervisor side of the machine (pkg/machine's
	// string), "" when the limb knows none.
	Machine string
}

// Session is one live connection. It ends on its own when the connection
// drops (Done closes, Err says why) or when Close is called.
type Session interface {
	Done() <-chan struct{}
	// Err is why the session ended, as a *wire.Error where the cause is
	// known (AUTH_FAILED, UNREACHABLE, PROTOCOL_ERROR…).
	Err() error
	Close() error
	// Signals reports the negotiated signals, every entry live, absent or
	// unknown with a reason.
	Signals() wire.Signals
}

// Liveness is implemented by sessions that can tell a stalled server (one
// that answers nothing, not even a probe) from a quiet one. A stalled
// session's pixels may be stale.
type Liveness interface {
	Stalled() (stalled bool, silent time.Duration)
}

// DecodeBudgetSignal reports whether a desktop's decoding is being held to
// its budget (fb.Buffer.SpendDecode): while it is, the server sends more
// than the limb decodes and pixels lag behind.
func DecodeBudgetSignal(buf *fb.Buffer) wire.Signal {
	recent, paused, perSecond := buf.DecodeThrottle()
	v := map[string]any{"throttled": recent, "pixelsPerSecond": perSecond, "decodeMsPerSecond": fb.DefaultDecodeTime.Milliseconds(), "pausedMs": paused.Milliseconds()}
	if recent {
		return wire.Signal{State: wire.SignalLive, Value: v,
			Reason: "the server sends more updates than the decode budget allows; reading is paused each second, so pixels lag behind"}
	}
	return wire.Signal{State: wire.SignalLive, Value: v}
}

// TakenOverError is a session's end when another connection took the
// remote session over. The daemon reports it and does not reconnect by
// itself: taking the session back would start a tug of war.
type TakenOverError struct{ Err *wire.Error }

func (e *TakenOverError) Error() string { return e.Err.Error() }
func (e *TakenOverError) Unwrap() error { return e.Err }

// Buttons is a pointer button mask with RFB's bit meanings.
type Buttons uint8

const (
	ButtonLeft Buttons = 1 << iota
	ButtonMiddle
	ButtonRight
	WheelUp
	WheelDown
	WheelLeft
	WheelRight
)

// Desktop is a live graphical session writing into the framebuffer given to
// its dialer.
type Desktop interface {
	Session
	// Pointer moves the pointer to (x, y) with the given buttons down.
	Pointer(x, y int, b Buttons) error
	// Key presses (down) or releases an X11 keysym.
	Key(keysym uint32, down bool) error
	// TypeRune types one character by the protocol's most faithful route
	// (keysyms with the right shift state on VNC, Unicode events on RDP).
	TypeRune(r rune) error
	// SetClipboard puts text on the remote clipboard.
	SetClipboard(text string) (ClipboardInfo, error)
	// Clipboard is what the remote last copied.
	Clipboard() (text string, info ClipboardInfo, ok bool)
	DesktopName() string
}

// CursorSource is a Desktop that knows the remote pointer's shape (the
// VNC Cursor pseudo-encoding): img is nil until the server sent one.
type CursorSource interface {
	CursorShape() (img *image.RGBA, hotspot image.Point)
}

// RuneChecker is a Desktop that cannot type every character (an RDP
// server without Unicode input): CheckRune says, before anything is sent,
// whether TypeRune(r) can deliver r, with a coded reason when it cannot.
type RuneChecker interface {
	CheckRune(r rune) error
}

// ChordChecker is a Desktop that cannot deliver every chord (RDP, whose
// Unicode events carry no modifiers): CheckChord says, before any key goes
// down, whether the keysyms (press order) can be delivered as a chord.
type ChordChecker interface {
	CheckChord(syms []uint32) error
}

// ClipboardInfo says how a clipboard text travelled.
type ClipboardInfo struct {
	Via     string   // "extended-utf8" or "latin1"
	Dropped []string // characters the route could not carry
	// Confirmed: the server acknowledged the new clipboard (RDP's Format
	// List Response); Unconfirmed says why not when it did not.
	Confirmed   bool
	Unconfirmed string
}

// DesktopDialer connects a desktop session that writes into buf. It returns
// once the session is established (handshake done) or has failed.
type DesktopDialer func(ctx context.Context, t Target, buf *fb.Buffer) (Desktop, error)

// Terminal is a live shell session behind a VT emulator.
type Terminal interface {
	Session
	// Send writes bytes to the PTY.
	Send(b []byte) error
	// Read returns output from the scrollback ring after cursor since
	// (0 = from the start), at most max bytes, and the next cursor. When the
	// ring has overwritten part of what was asked, lost says how many bytes.
	Read(since uint64, max int) (data []byte, next uint64, lost int64, err error)
	// End is the cursor just past the latest output (where a Read of what
	// comes next starts).
	End() uint64
	// Grid is the emulator's visible screen and cursor.
	Grid() (rows []string, cursorX, cursorY int)
	// Changed closes at the next output; LastOutput is when output last came.
	Changed() <-chan struct{}
	LastOutput() time.Time
	// Exited reports the shell's exit status once it ended.
	Exited() (code int, exited bool)
	Size() (cols, rows int)
	// Runner and files over the same SSH connection.
	Exec
	FilesProvider
}

// TerminalDialer connects a terminal session.
type TerminalDialer func(ctx context.Context, t Target) (Terminal, error)

// Exec runs one command on a fresh channel.
type Exec interface {
	Run(ctx context.Context, command, cwd string, maxOutput int) (*wire.RunResult, error)
	// RunWith is Run with input, environment and root.
	RunWith(ctx context.Context, r RunSpec) (*wire.RunResult, error)
}

// RunSpec is one command and how it runs.
type RunSpec struct {
	Command   string
	Cwd       string // "": the login directory
	MaxOutput int    // per stream; 0: the default
	Stdin     []byte // fed to the command, then end of file
	Env       []string
	Sudo      bool // as root through sudo -n; refused with SUDO_REFUSED
}

// Guest is implemented by a channel into the machine that learnt the
// machine's facts when it connected.
type Guest interface {
	Facts() *wire.GuestFacts
}

// FilesProvider opens an SFTP session.
type FilesProvider interface {
	Files(ctx context.Context) (Files, error)
}

// FilesDialer opens SFTP over a sidecar SSH connection for desktop limbs.
type FilesDialer func(ctx context.Context, t Target) (Files, error)

// Files is remote file access. Paths may start with ~ (the remote home).
// Errors are *wire.Error (NOT_FOUND, FILES_UNAVAILABLE, BAD_REQUEST…).
type Files interface {
	List(path string) ([]wire.FileEntry, error)
	Get(path string, w io.Writer, max int64) (int64, error)
	Put(path string, r io.Reader, mode uint32) (int64, error)
	Mkdir(path string) error
	Remove(path string, recursive bool) error
	Rename(from, to string) error
	Home() (string, error)
	Resolve(path string) (string, error)
	// Stat describes one path without following a final symbolic link,
	// as stat(1) does.
	Stat(path string) (*wire.FileStat, error)
	// GetRange streams length bytes from offset (length < 0: to the end).
	GetRange(path string, w io.Writer, offset, length int64) (int64, error)
	// Append adds r's bytes to the end of the file, creating it with mode
	// (0: the server's default) when it does not exist; with mode > 0 an
	// existing file's mode is set too.
	Append(path string, r io.Reader, mode uint32) (int64, error)
	Close() error
}

// SizeHint is implemented by a writer handed to Files.Get that wants the
// file's size before its bytes, so a transfer's progress can show a total.
type SizeHint interface{ ExpectSize(n int64) }

// ModeHint is implemented by a writer handed to Files.Get that wants the
// remote file's permission bits before its bytes, so a local copy can be
// created with them (less the umask), as scp does.
type ModeHint interface{ ExpectMode(perm fs.FileMode) }
