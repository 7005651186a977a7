package daemon

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/dvvhq/dvv/pkg/discovery"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Config is what dvvd is started with.
type Config struct {
	ID         string // instance name; the socket is /tmp/dvv<uid>/<ID>.sock
	SocketPath string // overrides the path derived from ID (tests)
	// Listener is a socket the service manager already bound (systemd
	// socket activation); Listen uses it as it is and never unlinks it.
	Listener *net.UnixListener
	Logger   *slog.Logger

	// Dialers by protocol. A protocol without a dialer answers UNSUPPORTED.
	Desktop  map[string]limb.DesktopDialer
	Terminal limb.TerminalDialer
	// TerminalPort is the port a terminal dial uses for an address given
	// without one (ssh: the ssh configuration's Port, else 22), so the
	// limb id names the endpoint. nil: the protocol's default port.
	TerminalPort func(address string) int
	Files        limb.FilesDialer // sidecar SFTP for desktop limbs
	// MachineSSH reaches a hypervisor's socket through SSH (qmp+ssh,
	// libvirt's qemu+ssh); nil: such machines answer UNSUPPORTED.
	MachineSSH machine.SSHDialer
	// Structure finds a desktop limb's X session over its SSH sidecar
	// (windows, workspaces, the accessibility bus); nil: none.
	Structure limb.StructureDialer

	// Services from the hosts/policy layer (nil = feature off).
	Services Services

	// FenceThreshold is the share of the frame's tiles that must change
	// since an attachment's last pixel read for type/key to be refused.
	FenceThreshold float64
	// SessionIdle is how long a shell session's attachment keeps its leases
	// without any request.
	SessionIdle time.Duration
	// MaxConns bounds concurrent socket connections. When they are all
	// taken, the one half-open the longest is closed for a new one.
	MaxConns int
	// LineIdle is how long a request line may stay unfinished before the
	// connection is closed (default 30 s).
	LineIdle time.Duration
	// LineBudget bounds the bytes of unfinished request lines all
	// connections hold together (default 96 MiB).
	LineBudget int64
	// Ops is the op table dvvd serves (nil: wire.Builtin()). Tests serve
	// an op of their own through it without changing dvv's table.
	Ops *wire.Table
	// OCRProgram is the tesseract program text reading runs ("": $DVV_TESSERACT, then PATH).
	OCRProgram string
	// MaxFramebufferPixels bounds the desktop area a server may announce
	// (0: fb.DefaultMaxPixels); a larger one fails the limb PROTOCOL_ERROR.
	MaxFramebufferPixels int
	// ViewerPort is the browser viewer's port on 127.0.0.1 (0 = any free).
	ViewerPort int
}

// Grant is what an attachment may do.
type Grant = policy.Grant

// Services are the hosts/keychain/discovery/policy layer. Any may be nil:
// the ops that need it then answer with the reason.
type Services struct {
	Hosts     *hosts.Store
	SSHConfig string // path of ~/.ssh/config whose hosts are listed too ("" = none)
	Keychain  keychain.Keychain
	Discovery *discovery.Browser
	Tokens    *policy.TokenStore
	// Trust fetches a machine's SSH host key or TLS certificate and trusts
	// it (dvv hosts trust) when it is the fingerprint the user checked, or,
	// with none given, when acceptNew allows a new key; it returns the
	// presented fingerprint and whether it was trusted already.
	Trust func(protocol, address string, port int, checked string, acceptNew bool) (fingerprint string, already bool, err error)
	// HostKey compares an SSH endpoint's host key with known_hosts without
	// writing (`dvv doctor`); nil when SSH is not built in.
	HostKey func(ctx context.Context, address string, port int, user string) (fingerprint string, err error)
}

// DefaultFenceThreshold: type and key are refused once more than this share
// of the frame (counted in 16x16 tiles) has repainted since the
// attachment's last pixel read. A fifth of the screen is more than a
// terminal echoing keys or a blinking caret, and less than a dialog box on a
// laptop-sized screen or a new window.
const DefaultFenceThreshold = 0.20
