package wire

import (
	"fmt"
	"sync"
)

// Code is one of a closed set of error codes. Each has a meaning, the move
// an agent should make next, and the exit status of the dvv CLI.
type Code string

const (
	LimbGone          Code = "LIMB_GONE"
	GeometryChanged   Code = "GEOMETRY_CHANGED"
	ScreenChanged     Code = "SCREEN_CHANGED"
	LeaseRevoked      Code = "LEASE_REVOKED"
	LeaseNotHeld      Code = "LEASE_NOT_HELD"
	PolicyDenied      Code = "POLICY_DENIED"
	BadRequest        Code = "BAD_REQUEST"
	SlotRefused       Code = "SLOT_REFUSED"
	Unfenced          Code = "UNFENCED"
	OutOfBounds       Code = "OUT_OF_BOUNDS"
	WrongProtocol     Code = "WRONG_PROTOCOL"
	UnknownKey        Code = "UNKNOWN_KEY"
	NotReady          Code = "NOT_READY"
	NotConnected      Code = "NOT_CONNECTED"
	Timeout           Code = "TIMEOUT"
	NotImplemented    Code = "NOT_IMPLEMENTED"
	FilesUnavailable  Code = "FILES_UNAVAILABLE"
	NoStructure       Code = "STRUCTURE_UNAVAILABLE"
	AuthFailed        Code = "AUTH_FAILED"
	Unreachable       Code = "UNREACHABLE"
	ProtocolError     Code = "PROTOCOL_ERROR"
	HostKeyUnknown    Code = "HOSTKEY_UNKNOWN"
	HostKeyChanged    Code = "HOSTKEY_CHANGED"
	Unsupported       Code = "UNSUPPORTED"
	NotFound          Code = "NOT_FOUND"
	StaleElement      Code = "STALE_ELEMENT"
	CursorExpired     Code = "CURSOR_EXPIRED"
	KeychainMissing   Code = "KEYCHAIN_UNAVAILABLE"
	NoMachine         Code = "NO_MACHINE"
	MachineRefused    Code = "MACHINE_REFUSED"
	TooLarge          Code = "TOO_LARGE"
	Busy              Code = "BUSY"
	SudoRefused       Code = "SUDO_REFUSED"
	Internal          Code = "INTERNAL"
	DaemonUnavailable Code = "DAEMON_UNAVAILABLE" // client side only: no dvvd answers
	SocketUnsafe      Code = "SOCKET_UNSAFE"      // client side only: the socket may not be this user's dvvd
)

// CodeInfo documents a code. docs/protocol.md is generated from this table.
type CodeInfo struct {
	Code    Code
	Meaning string
	Next    string // the right move
	Exit    int    // dvv CLI exit status
}

// Exit statuses of the dvv CLI, one per class of error.
const (
	ExitOK          = 0
	ExitInternal    = 1  // a bug or an unclassified failure
	ExitUsage       = 2  // bad arguments or request
	ExitDaemon      = 3  // dvvd is not running or not reachable
	ExitGone        = 4  // the limb, group, host or token does not exist
	ExitFence       = 5  // geometry/screen fence refused the act
	ExitLease       = 6  // the lease is not held or was revoked
	ExitDenied      = 7  // policy or credentials refused
	ExitConnection  = 8  // the remote machine is not reachable or not ready
	ExitUnsupported = 9  // the protocol or build cannot do this
	ExitTrust       = 10 // a host key or certificate needs a decision
)

// Codes is the closed set, in documentation order.
var Codes = []CodeInfo{
	{LimbGone, "The limb id (or group selector) resolved to no limb.", "Call `limbs` for the current ids; ids are reproducible, so the same machine at the same slot comes back with the same id.", ExitGone},
	{GeometryChanged, "The framebuffer was resized since the coordinate's generation; nothing was delivered.", "Call `screen` again and recompute the coordinate against the new generation.", ExitFence},
	{ScreenChanged, "A large repaint happened since this attachment last read pixels (or it never read any); nothing was typed.", "Call `screen`, check what has focus and what is selected, then type.", ExitFence},
	{LeaseRevoked, "The lease went away under a call that had it (a person took over, or it expired).", "Call `control` with action yield_status; if lease.human_took_over is true, stop and tell the user.", ExitLease},
	{LeaseNotHeld, "The act needs the control lease and this attachment does not hold it.", "Call `control` with action acquire (waitMs to wait for it).", ExitLease},
	{PolicyDenied, "This attachment's token lacks the capability the op needs; the message names it.", "Ask the owner for a token with that capability; do not retry.", ExitDenied},
	{BadRequest, "The request is malformed: bad JSON, unknown op, wrong type, missing or conflicting field, or an over-long line.", "Fix the request as the message says.", ExitUsage},
	{SlotRefused, "The protocol does not give concurrent sessions (VNC shares one), so slot > 0 is refused.", "Open with slot 0.", ExitUnsupported},
	{Unfenced, "A coordinate act came without a geometry generation.", "Read the generation from `status` or `screen` and pass it.", ExitFence},
	{OutOfBounds, "The coordinate lies outside the framebuffer.", "Recompute it inside the size given in the observation.", ExitFence},
	{WrongProtocol, "The op does not apply to this kind of limb (e.g. click on a terminal).", "Use the op made for this limb kind.", ExitUnsupported},
	{UnknownKey, "A key name is not in the fixed table.", "Use a name from the table in docs/protocol.md.", ExitUsage},
	{NotReady, "The limb exists but has not reached the state needed (still connecting, or no frame yet).", "Call `wait` with until: connected, then retry.", ExitConnection},
	{NotConnected, "The limb is not connected (reconnecting, or failed).", "Call `reconnect`, or `status` to read the reason.", ExitConnection},
	{Timeout, "A deadline passed before the operation finished.", "Read `status` or `history` to learn what happened, then decide.", ExitConnection},
	{NotImplemented, "Something the protocol truly cannot do.", "Use another route; the message names it.", ExitUnsupported},
	{FilesUnavailable, "No SFTP route: the machine has no SSH server, authentication failed, or its host key is not trusted yet.", "Read the reason in the message; trust the host key or save SSH credentials, then retry.", ExitConnection},
	{NoStructure, "No window structure for this limb: it has no SSH sidecar, the sidecar found no X11 session (Wayland, macOS, Windows), no window manager or accessibility bus runs there, or it is an RDP limb.", "Read the reason in the message (`dvv signals LIMB` says the same); for a Linux desktop over VNC, save its SSH sidecar with `dvv hosts add NAME … --ssh-port P --ssh-user U`; otherwise act by pixels (screen, find, click).", ExitUnsupported},
	{AuthFailed, "The remote machine refused the credentials.", "Give the right password, do not retry blindly: for an address, open it with the password (`printf '%s\\n' \"$PW\" | dvv open ADDRESS --protocol P --password-stdin`, the open op's `password`); for a saved machine, save it again with `dvv hosts add NAME … --password-stdin` or fix its line in ~/.config/dvv/credentials.", ExitDenied},
	{Unreachable, "Nothing answered at the address, or the connection broke during set-up.", "Check the address and port, and that the server runs.", ExitConnection},
	{ProtocolError, "The remote server sent something malformed or hostile; the limb was failed to protect the daemon.", "Call `reconnect`; if it repeats, the server is broken.", ExitConnection},
	{HostKeyUnknown, "The machine's SSH host key or TLS certificate is not trusted yet; `fingerprint` and the message show what it presents.", "Check the fingerprint, then run the command the message names (`dvv hosts trust …`).", ExitTrust},
	{HostKeyChanged, "The machine's host key or certificate differs from the one trusted before, or from the fingerprint given to `hosts trust`; nothing was written. This may be an attack.", "Stop. Verify the machine out of band before replacing the trusted key.", ExitTrust},
	{Unsupported, "The server offers only something this build does not speak (e.g. anonymous-TLS VNC).", "Follow the message: it names the alternative the server can be configured with.", ExitUnsupported},
	{StaleElement, "An element id no longer names what it named: its window moved or was resized, the element moved within it, the screen's geometry changed, or the element or its program is gone.", "Run `inspect` again (dvv inspect LIMB …) and use the fresh id it gives.", ExitGone},
	{NotFound, "A named host, group, token or path does not exist.", "List what exists (`hosts`, `group_list`, `token_list`, `files list`).", ExitGone},
	{CursorExpired, "The terminal cursor points before what the scrollback ring still holds; the message says how many bytes were lost.", "Read again without `since` (or with the new cursor given) and accept the gap.", ExitGone},
	{KeychainMissing, "No keychain is reachable to store or read a secret.", "Start a Secret Service provider (e.g. gnome-keyring) in dvvd's session, or give the password another way: a HOST:PASSWORD line in ~/.config/dvv/credentials (mode 0600; `dvv hosts add --password-stdin` writes it when no keychain answers), or `dvv open … --password-stdin` for one limb.", ExitDenied},
	{NoMachine, "The limb knows no machine: it was opened without one, so there is no hypervisor to ask.", "Open the limb again naming its machine (`dvv open … --machine qmp:/path/qmp.sock` or `libvirt:DOMAIN`, the open op's `machine`), or save it on the host (`dvv hosts add … --machine …`).", ExitUnsupported},
	{MachineRefused, "The hypervisor refused the act (the machine is in a state where it does not apply, or the backend cannot do it); the message carries the hypervisor's words.", "Read the machine's state (`dvv machine L state`), then act on it: resume a paused machine, start a shut-off one.", ExitUnsupported},
	{TooLarge, "The request or its payload is over a stated size limit.", "Send less (the message states the limit), or use a local path instead of inline content.", ExitUsage},
	{Busy, "Another operation holds what this one needs.", "Retry after the other one finishes.", ExitConnection},
	{SudoRefused, "The command was to run as root (`sudo`) and the machine's sudo refused to without a password (`sudo -n`), or has no sudo; the command did not run.", "Run it without sudo, or have the machine's administrator allow the user to run commands as root without a password (a NOPASSWD sudoers rule); do not retry as is.", ExitDenied},
	{Internal, "A bug in dvvd.", "Report it with `dvv history`; the daemon stays up.", ExitInternal},
	{DaemonUnavailable, "No dvvd answers on the socket.", "Start it: `dvvd &` or `systemctl --user start dvvd`.", ExitDaemon},
	{SocketUnsafe, "The socket's directory or file is not this user's alone (another owner, group/other permission bits, a symlink), or the process listening on it runs as another user; nothing was sent to it.", "Follow the message: have the directory removed (it names its owner), or set XDG_RUNTIME_DIR to a private directory; then start dvvd again.", ExitDaemon},
}

var codeIndex = sync.OnceValue(func() map[Code]CodeInfo {
	m := make(map[Code]CodeInfo, len(Codes))
	for _, c := range Codes {
		m[c.Code] = c
	}
	return m
})

// Info returns the documentation of a code (Internal's for unknown codes).
func (c Code) Info() CodeInfo {
	if i, ok := codeIndex()[c]; ok {
		return i
	}
	return codeIndex()[Internal]
}

// Known reports whether c is in the closed set.
func (c Code) Known() bool { _, ok := codeIndex()[c]; return ok }

// Error is a coded error. It crosses the socket as an answer with
// result "error".
type Error struct {
	Code        Code         `json:"code"`
	Message     string       `json:"message"`
	Next        string       `json:"next,omitempty"`
	Cause       Code         `json:"cause,omitempty"`       // the code under Code, when dvvd mapped one onto another
	Fingerprint string       `json:"fingerprint,omitempty"` // HOSTKEY_UNKNOWN/CHANGED (or FILES_UNAVAILABLE for one): what the server presents
	Observation *Observation `json:"observation,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Exit is the dvv CLI's exit status for the error: its cause's when it has
// one, so a script still tells a refused password from a dropped link.
func (e *Error) Exit() int {
	if e.Cause != "" {
		return e.Cause.Info().Exit
	}
	return e.Code.Info().Exit
}

// Errorf builds a coded error; the next move defaults to the code's own.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Next: code.Info().Next}
}
