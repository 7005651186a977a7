package limb

import (
	"context"
	"net"
)

// Structure is the desktop session behind a desktop limb, reached over
// the limb's SSH sidecar: its X display and its accessibility bus, each
// dialed as a Unix socket through SSH streamlocal forwarding. Errors are
// *wire.Error (STRUCTURE_UNAVAILABLE with the reason).
type Structure interface {
	Info() StructureInfo
	// DialX11 connects to the X server's socket; the connection setup's
	// authorization is Info().XCookie (xwin.Open sends it).
	DialX11(ctx context.Context) (net.Conn, error)
	// DialA11y connects to the accessibility bus (a D-Bus), or answers
	// STRUCTURE_UNAVAILABLE with Info().A11yAbsent. D-Bus EXTERNAL
	// authentication must name Info().UID, the remote user.
	DialA11y(ctx context.Context) (net.Conn, error)
	Done() <-chan struct{}
	Close() error
}

// StructureInfo is what the sidecar found of the session.
type StructureInfo struct {
	Display    string // ":49"
	XSocket    string // "/tmp/.X11-unix/X49"
	XCookie    []byte // MIT-MAGIC-COOKIE-1 (16 bytes); nil: the server asks none
	A11yBus    string // the accessibility bus's address as the root window's AT_SPI_BUS holds it
	A11yAbsent string // why there is no accessibility bus ("" when A11yBus is set)
	UID        int    // the sidecar user's uid on the remote machine
	Found      string // how the display was found, for people
}

// StructureDialer opens the structure of a desktop limb's session over
// its sidecar (t.SSHPort, t.SSHUser), for the X display serving t.Port.
type StructureDialer func(ctx context.Context, t Target) (Structure, error)
