// Package daemon is dvvd's core: the control socket, attachments, the op
// dispatch table with its access check, the limb registry, leases, fences,
// groups and operation history. It knows the limb interfaces (pkg/limb), not
// the protocols behind them, and speaks pkg/wire types, not bytes.
package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/sock"
	"github.com/dvvhq/dvv/pkg/viewer"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Version is dvvd's version, reported by hello.
var Version = "0.1.0-dev"

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

// Daemon is a running dvvd.
type Daemon struct {
	core              // what a limb reaches too (core.go)
	tail    *logTail  // the log's last lines, for `report`
	started time.Time // for `report`'s uptime

	// mu guards the maps below and every attachment's fields: limbs,
	// attachments and groups are one lock because their decisions span
	// them (a limb is closed only when no group or other attachment still
	// uses it; a selector resolves a group's member to its limb). Lock
	// order: Daemon.mu, then a Limb's mu, then the event hub's; never the
	// other way (Limb.close lets go of its own mu before it takes this
	// one). Loops over all limbs copy d.limbs and lock each limb outside
	// mu, so a slow limb never holds up every request's selector.
	mu          sync.Mutex
	limbs       map[string]*Limb
	attachments map[string]*attachment
	groups      map[string]*group
	nextGroup   int
	closing     bool

	// viewerMu guards viewer alone: starting the viewer binds a port and
	// must not hold up every request's selector meanwhile.
	viewerMu sync.Mutex
	viewer   *viewer.Server // the browser viewer, once started (viewer.go)

	shares shares // the limbs' RFB re-shares (share.go)

	ln    *net.UnixListener
	conns sync.WaitGroup

	// connMu guards the connection accounting below, which has nothing to
	// do with limbs: the accept loop (and an eviction's write to the
	// evicted socket) never waits for mu, nor a request for connMu. It is
	// never held together with mu.
	connMu sync.Mutex
	nconns int
	live   map[*conn]struct{} // for eviction of half-open connections

	lines    *lineBudget
	inflight atomic.Int64 // requests with an id running, all connections
	subs     atomic.Int64 // event streams, all connections

	ctx     context.Context
	cancel  context.CancelFunc
	stopped chan struct{} // closed when Shutdown has finished
}

// New builds a daemon; Serve starts it.
func New(cfg Config) *Daemon {
	if cfg.ID == "" {
		cfg.ID = "default"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if cfg.FenceThreshold == 0 {
		cfg.FenceThreshold = DefaultFenceThreshold
	}
	if cfg.SessionIdle == 0 {
		cfg.SessionIdle = 30 * time.Minute
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 1024
	}
	if cfg.LineIdle == 0 {
		cfg.LineIdle = defaultLineIdle
	}
	if cfg.LineBudget == 0 {
		cfg.LineBudget = defaultLineBudget
	}
	if cfg.Ops == nil {
		cfg.Ops = wire.Builtin()
	}
	ctx, cancel := context.WithCancel(context.Background())
	tail := newLogTail()
	return &Daemon{core: core{cfg: cfg, log: withTail(cfg.Logger, tail), events: newEventHub()}, tail: tail, started: time.Now(), limbs: map[string]*Limb{}, attachments: map[string]*attachment{},
		groups: map[string]*group{}, ctx: ctx, cancel: cancel, stopped: make(chan struct{}),
		live: map[*conn]struct{}{}, lines: &lineBudget{max: cfg.LineBudget}}
}

// Listen opens the control socket (see socket.go for the rules it enforces).
func (d *Daemon) Listen() error {
	if err := checkHandlers(d.cfg.Ops); err != nil {
		return err
	}
	if ln := d.cfg.Listener; ln != nil {
		d.ln = ln
		d.log.Info("listening on the socket the service manager passed", "socket", ln.Addr().String(), "pid", os.Getpid())
		return nil
	}
	path := d.SocketPath()
	ln, err := listen(path)
	if err != nil {
		return err
	}
	d.ln = ln
	d.log.Info("listening", "socket", path, "pid", os.Getpid())
	return nil
}

// Serve accepts connections until Shutdown. Listen must have succeeded.
func (d *Daemon) Serve() error {
	go d.janitor()
	var pause time.Duration
	for {
		c, err := d.ln.AcceptUnix()
		if err != nil {
			if d.ctx.Err() != nil {
				return nil
			}
			// Never fatal: a flood on another port that uses up the file
			// descriptors must not close every limb with dvvd.
			if acceptRetry(err, &pause, d.ctx.Done(), d.log.Warn) {
				continue
			}
			if d.ctx.Err() != nil {
				return nil
			}
			return err
		}
		pause = 0
		uid, err := sock.PeerUID(c)
		if err != nil || uid != os.Getuid() {
			d.log.Warn("refused connection from another user", "peer_uid", uid)
			c.Close()
			continue
		}
		d.connMu.Lock()
		full := d.nconns >= d.cfg.MaxConns && !d.evictHalfOpen()
		var dc *conn
		if !full {
			d.nconns++
			dc = d.newConn(c)
		}
		d.connMu.Unlock()
		if full {
			writeRaw(c, &wire.Reply{Result: wire.ResultError, Code: wire.Busy,
				Message: fmt.Sprintf("dvvd already serves %d connections, each with a complete request", d.cfg.MaxConns),
				Next:    "close idle clients and retry"})
			c.Close()
			continue
		}
		d.conns.Add(1)
		go func() {
			defer d.conns.Done()
			d.serveConn(dc)
			d.connMu.Lock()
			d.nconns--
			d.connMu.Unlock()
		}()
	}
}

// Shutdown closes every limb (withdrawing in-flight intents first), stops
// accepting, removes the socket and waits for connections to end.
func (d *Daemon) Shutdown() {
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return
	}
	d.closing = true
	limbs := make([]*Limb, 0, len(d.limbs))
	for _, l := range d.limbs {
		limbs = append(limbs, l)
	}
	d.mu.Unlock()
	// Limbs close in parallel: each may wait up to actSettle for its
	// intents, and a hundred of them one after another would outlast a
	// service manager's stop timeout.
	var wg sync.WaitGroup
	for _, l := range limbs {
		wg.Add(1)
		go func() { defer wg.Done(); d.closeLimb(l) }()
	}
	wg.Wait()
	// Only now is the root context cancelled: every limb's context is a
	// child of it, and cancelling first would end each session under its
	// intents instead of letting close withdraw them (a key left down).
	d.cancel()
	if d.ln != nil {
		d.ln.Close()
	}
	done := make(chan struct{})
	go func() { d.conns.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		// A client that never reads keeps its connection's writer blocked
		// until writeTimeout; stopping must not wait for it.
	}
	d.log.Info("stopped", "limbs_closed", len(limbs))
	close(d.stopped)
}

// Done is closed once Shutdown has begun.
func (d *Daemon) Done() <-chan struct{} { return d.ctx.Done() }

// Stopped is closed once Shutdown has finished (and logged "stopped"): a
// main that returned at Done would cut the shutdown short.
func (d *Daemon) Stopped() <-chan struct{} { return d.stopped }

// janitor expires leases of attachments whose shell session ended or that
// sat idle past SessionIdle.
func (d *Daemon) janitor() {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
			d.expireAttachments()
		}
	}
}
