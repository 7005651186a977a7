package daemon

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/daemon/fence"
	"github.com/dvvhq/dvv/pkg/daemon/history"
	"github.com/dvvhq/dvv/pkg/daemon/verify"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/imaging"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Limb is one live connection to one machine, kept up across drops. This
// is the part every kind shares: id, state and the reconnect loop, lease,
// history, files. What differs between a desktop and a terminal is its
// part, declared below (its behaviour: limb_desktop.go, limb_terminal.go).
type Limb struct {
	core   *core // what the limb takes from its daemon
	id     string
	target limb.Target
	kind   string // wire.KindDesktop or wire.KindTerminal, fixed by the protocol

	// part is the kind's half; exactly one of dsk (a desktop) and tty (a
	// terminal) is set, and is part. Ops bound to a kind (wire.OpSpec.Kind)
	// use that one without a check: dispatch refused a limb of the other
	// kind.
	part limbPart
	dsk  *desktopLimb
	tty  *terminalLimb

	// mu guards the fields below, the lease, and the session fields of
	// dsk and tty. It is not held across a session's network I/O: a
	// server that reads nothing would stall every status call behind it.
	mu         sync.Mutex
	state      string
	lastErr    *wire.LimbError
	reconnects int
	stateCh    chan struct{} // closed at every state change
	perceive   bool
	redial     chan struct{}
	files      limb.Files // SFTP, opened on first use
	// sidecarFacts are what a desktop's machine said of itself when its
	// files sidecar connected (status reads them without filesMu, which a
	// dial holds).
	sidecarFacts atomic.Pointer[wire.GuestFacts]
	filesMu      sync.Mutex // guards files alone: an SFTP dial is slow and must not block mu

	lease  leaseState
	actLog actLog    // recent agent acts for the viewer (acts.go)
	paused bool      // a person paused agent input on this limb (ops_pause.go)
	rec    *recorder // the running recording, if any (record.go)

	acts      sync.WaitGroup
	actCtx    context.Context
	actCancel context.CancelFunc

	// machineGate holds acts (read) while the limb's machine is restored
	// or reset (write); machineEv is the last such event (machine.go).
	machineGate sync.RWMutex
	machineEv   *wire.MachineEvent

	history history.Ring
	ctx     context.Context
	cancel  context.CancelFunc
	exited  chan struct{} // closed when the run loop ended
}

// A limb's kind is its protocol's (wire.Protocols).
const (
	kindDesktop  = wire.KindDesktop
	kindTerminal = wire.KindTerminal
)

// limbPart is what a kind of limb adds to the common part. The run loop,
// the observation and the per-attachment bookkeeping go through it, so
// they hold no kind branches of their own.
type limbPart interface {
	// dial connects a fresh session and keeps it as the live one.
	dial(ctx context.Context, t limb.Target) (limb.Session, error)
	// redialing runs before a reconnect's dial.
	redialing()
	// detachLocked forgets the live session; liveLocked reports whether
	// there is one (Limb.mu held).
	detachLocked()
	liveLocked() bool
	// ended reports a session that ended because the remote program did
	// (a shell that exited), not its connection.
	ended() bool
	// observe fills the kind's half of an observation for a (size,
	// geometry, coverage, fence) and says when the screen last changed.
	observe(o *wire.Observation, a *attachment) time.Time
	// signals are the live session's; nil without one.
	signals() wire.Signals
	// changeSource is what screen-stable, screen-changed and idle waits
	// watch: the mirror, or the output stream.
	changeSource(until string) (*changeSource, error)
	// filesVia names the SFTP route ("sidecar", "ssh"); openFiles dials
	// it (Limb.filesFor keeps it open).
	filesVia() string
	openFiles(ctx context.Context) (limb.Files, error)
	// forgetLocked drops what the kind keeps for attachment a, or for
	// every attachment when a is nil (Limb.mu held).
	forgetLocked(a *attachment)
}

func asWireError(err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	return wire.Errorf(wire.Unreachable, "%v", err)
}

// requestRedial asks the run loop to drop and dial again.
func (l *Limb) requestRedial() {
	select {
	case l.redial <- struct{}{}:
	default:
	}
}

func (l *Limb) notConnectedLocked() error {
	reason := ""
	if l.lastErr != nil {
		reason = fmt.Sprintf(" (last error %s: %s)", l.lastErr.Code, l.lastErr.Message)
	}
	if l.state == wire.StateConnecting {
		return wire.Errorf(wire.NotReady, "limb %s is still connecting%s; call wait with until: connected", l.id, reason)
	}
	if l.state == wire.StateStalled {
		return wire.Errorf(wire.NotReady, "limb %s is stalled: the server has answered nothing, not even a liveness probe, so its pixels may be stale and input may not arrive; call wait with until: connected", l.id)
	}
	return wire.Errorf(wire.NotConnected, "limb %s is %s%s", l.id, l.state, reason)
}

// changeSource is what screen/idle waits watch: the framebuffer for a
// desktop, the output stream for a terminal.
type changeSource struct {
	seq     func() uint64
	last    func() time.Time
	changed func() <-chan struct{}
}

// mustBeConnected refuses, with why, unless the limb is connected.
func (l *Limb) mustBeConnected() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state != wire.StateConnected {
		return l.notConnectedLocked()
	}
	return nil
}

// desktopLimb is what a desktop limb (VNC, RDP) adds to the common part:
// the mirror of the remote framebuffer, which outlives each session so ids,
// generations and fences survive a reconnect, and every attachment's fence
// on it.
type desktopLimb struct {
	l      *Limb
	dialer limb.DesktopDialer

	buf    *fb.Buffer          // the mirror, kept across reconnects
	motion *verify.Motion      // where it changes with no act behind it
	enc    imaging.EncodeCache // recent encodes of the mirror
	txt    textReaders         // recognised text of the mirror, per language

	// Guarded by Limb.mu.
	session limb.Desktop // the live session, nil between sessions
	fences  map[*attachment]*fence.Typing

	structure structureCache // windows over the SSH sidecar (structure.go)
}

// liveDesktop returns the live desktop session or a coded reason there is none.
func (l *Limb) liveDesktop() (limb.Desktop, error) {
	if l.dsk == nil {
		return nil, wire.Errorf(wire.WrongProtocol, "limb %s is a terminal; use run, term_send or term_read", l.id)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dsk.session == nil {
		return nil, l.notConnectedLocked()
	}
	return l.dsk.session, nil
}

// generation is the geometry generation: 1 for the first size, +1 for each
// change. Before any size is known, and on terminals, it is 0.
func (l *Limb) generation() uint64 {
	if l.dsk == nil {
		return 0
	}
	return l.dsk.buf.Resizes()
}

// terminalLimb is what a terminal limb (SSH) adds to the common part: the
// live shell session, whose emulator and output ring live in the session
// itself, and the shell's exit status once it ended. A terminal is never
// fenced: its screen is text the agent reads whole.
type terminalLimb struct {
	l      *Limb
	dialer limb.TerminalDialer

	// Guarded by Limb.mu.
	session  limb.Terminal // nil between sessions
	exitCode *int          // the shell's exit status, once it ended
}

// liveTerminal returns the live terminal session or a coded reason.
func (l *Limb) liveTerminal() (limb.Terminal, error) {
	if l.tty == nil {
		return nil, wire.Errorf(wire.WrongProtocol, "limb %s is a desktop; terminal ops need a terminal limb", l.id)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tty.session == nil {
		return nil, l.notConnectedLocked()
	}
	return l.tty.session, nil
}

// pausedLocked reports whether agent input is paused on l. Needs l.mu.
func (l *Limb) pausedLocked() bool { return l.paused || l.core.pausedAll.Load() }

// withdrawActsLocked cancels the acts in flight and starts a fresh act
// context. Needs l.mu.
func (l *Limb) withdrawActsLocked() {
	l.actCancel()
	l.actCtx, l.actCancel = context.WithCancel(l.ctx)
}

// enterActGate lets an act (a Dispatches op) in unless a restore or reset
// is under way, which it waits out; the function returned lets it out.
// Other ops pass.
func (l *Limb) enterActGate(act bool) func() {
	if !act {
		return func() {}
	}
	l.machineGate.RLock()
	return l.machineGate.RUnlock
}

// machineEvent is a copy of the last screen-changing machine act.
func (l *Limb) machineEvent() *wire.MachineEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.machineEv == nil {
		return nil
	}
	ev := *l.machineEv
	return &ev
}

func machineEventWords(ev *wire.MachineEvent) string {
	switch ev.Act {
	case "restore":
		return "restored to snapshot " + ev.Snapshot
	case "reset":
		return "reset"
	}
	return ev.Act
}

// leaseState is a limb's control lease. Guarded by Limb.mu.
type leaseState struct {
	holder  *attachment
	since   time.Time
	reason  string
	human   bool                 // the holder took over as a person
	revoked map[*attachment]bool // lost the lease under them; their next act hears LEASE_REVOKED
	freed   chan struct{}        // closed when the lease is released (a channel, not a Cond: acquire also waits on its deadline and its caller)
}
