// Package daemon is dvvd's core: the control socket, attachments, the op
// dispatch table with its access check, the limb registry, leases, fences,
// groups and operation history. It knows the limb interfaces (pkg/limb), not
// the protocols behind them, and speaks pkg/wire types, not bytes.
//
// Its files stand in floors, each using only the ones beneath it: small
// types and the connection (config.go, conn.go, core.go); the limb
// (limb.go) and one file per concern of it (lease.go, fence.go,
// limb_desktop.go, limbs.go …); the Daemon (this file) and its registry;
// a call (call.go) and the op handlers (ops_*.go); dispatch, group_run,
// serving and the viewer on top. docs/architecture.md draws them.
package daemon

import (
	"context"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/viewer"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Version is dvvd's version, reported by hello.
var Version = "0.1.0-dev"

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
