package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/daemon/history"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// LimbID is reproducible: the same machine (protocol, address, port) at the
// same slot gets the same id, after a reconnect or a daemon restart.
func LimbID(protocol, address string, port, slot int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%d|%d", protocol, strings.ToLower(address), port, slot)))
	return protocol + "-" + hex.EncodeToString(sum[:4])
}

// Limb is one live connection to one machine, kept up across drops. This
// is the part every kind shares: id, state and the reconnect loop, lease,
// history, files. What differs between a desktop and a terminal is its
// part (limb_desktop.go, limb_terminal.go).
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
	paused bool      // a person paused agent input on this limb (pause.go)
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

// defaultPort is the port an address given without one is dialled on: the
// one a terminal client would dial (an ssh_config alias may name its own
// Port), else the protocol's default.
func (d *Daemon) defaultPort(p *wire.ProtocolSpec, address string) int {
	if p.Kind == kindTerminal && d.cfg.TerminalPort != nil {
		return d.cfg.TerminalPort(address)
	}
	return p.DefaultPort
}

// openLimb returns the limb for a target, starting it when it is new. It
// returns as soon as the session task runs.
func (d *Daemon) openLimb(t limb.Target) (*Limb, error) {
	kind := kindDesktop
	if p, ok := wire.Protocol(t.Protocol); ok {
		kind = p.Kind
	}
	switch {
	case kind == kindTerminal && d.cfg.Terminal == nil,
		kind == kindDesktop && d.cfg.Desktop[t.Protocol] == nil:
		return nil, wire.Errorf(wire.Unsupported, "this dvvd was built without %s support", t.Protocol)
	}
	id := LimbID(t.Protocol, t.Address, t.Port, t.Slot)
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return nil, wire.Errorf(wire.NotReady, "dvvd is shutting down")
	}
	if l := d.limbs[id]; l != nil {
		d.mu.Unlock()
		if err := l.rejoin(t); err != nil {
			return nil, err
		}
		return l, nil
	}
	defer d.mu.Unlock()
	ctx, cancel := context.WithCancel(d.ctx)
	l := &Limb{core: &d.core, id: id, target: t, kind: kind, state: wire.StateConnecting, stateCh: make(chan struct{}),
		perceive: t.Perceive, redial: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel, exited: make(chan struct{})}
	// actCtx is a child of ctx so close can withdraw in-flight intents
	// (and let them settle) before it ends the session under them.
	l.actCtx, l.actCancel = context.WithCancel(ctx)
	if kind == kindTerminal {
		l.tty = &terminalLimb{l: l, dialer: d.cfg.Terminal}
		l.part = l.tty
	} else {
		l.dsk = newDesktopLimb(l, d.cfg.Desktop[t.Protocol], d.cfg.MaxFramebufferPixels)
		l.part = l.dsk
	}
	d.limbs[id] = l
	go l.run()
	d.log.Info("limb opened", "limb", id, "protocol", t.Protocol, "address", t.Address, "port", t.Port, "slot", t.Slot)
	return l, nil
}

// rejoin is an open of an endpoint that already has a limb. It takes the
// open's credential (adoptCredential) and perception; a limb that stopped
// trying (failed: a refused password, an unknown host key; exited: the
// shell ended) dials again at once with what it now holds, so a password
// fixed in the keychain since is used by the next open, not only by
// reconnect. The stale error is dropped: it described the last attempt.
func (l *Limb) rejoin(t limb.Target) error {
	l.mu.Lock()
	if err := l.adoptCredential(t); err != nil {
		l.mu.Unlock()
		return err
	}
	if t.Perceive && !l.perceive {
		l.perceive = true
	}
	was := l.state
	again := was == wire.StateFailed || was == wire.StateExited
	if again {
		l.state, l.lastErr = wire.StateConnecting, nil
		close(l.stateCh)
		l.stateCh = make(chan struct{})
	}
	l.mu.Unlock()
	switch {
	case again:
		l.core.log.Info("limb opened again", "limb", l.id, "was", was)
		l.core.events.publish(&wire.Event{Kind: "limb.state", LimbID: l.id, Detail: wire.StateConnecting})
		l.requestRedial()
	case was == wire.StateReconnecting:
		// Someone asks for it now: the next try need not wait out the
		// backoff (a reconnecting limb is between dials, not in a session).
		l.requestRedial()
	}
	return nil
}

// permanent reports failures that retrying cannot fix without the user.
func permanent(err error) bool {
	var we *wire.Error
	if !errors.As(err, &we) {
		return false
	}
	switch we.Code {
	case wire.AuthFailed, wire.HostKeyUnknown, wire.HostKeyChanged, wire.Unsupported, wire.ProtocolError, wire.BadRequest:
		return true
	}
	return false
}

func asWireError(err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	return wire.Errorf(wire.Unreachable, "%v", err)
}

// Reconnect back-off: it doubles after every failed dial and after every
// session that dropped before it was stableAfter old, so a server that
// accepts and then hangs up is not hammered; a session that lived longer
// starts the next one at the minimum again.
const (
	backoffMin  = 250 * time.Millisecond
	backoffMax  = 10 * time.Second
	stableAfter = 30 * time.Second
)

// run keeps the limb connected: dial, serve until the session drops, back
// off, dial again — same id, same framebuffer. Permanent failures stop it in
// state failed until a reconnect asks again; so does a session another
// connection took over (taking it back would start a tug of war).
func (l *Limb) run() {
	defer close(l.exited)
	backoff := backoffMin
	first := true
	for l.ctx.Err() == nil {
		if !first {
			l.setState(wire.StateReconnecting, nil)
			l.part.redialing()
		}
		next, lasted := l.turn(&first)
		switch next {
		case turnStop:
			return
		case turnRedial:
			backoff = backoffMin
		case turnPark:
			if !l.sleepOrRedial(0) {
				return
			}
			backoff = backoffMin
		case turnBackOff:
			if lasted {
				backoff = backoffMin
			}
			if !l.sleepOrRedial(backoff) {
				return
			}
			backoff = min(backoff*2, backoffMax)
		}
	}
}

// turnEnd is what the reconnect loop does after one dial and the session
// it gave.
type turnEnd int

const (
	turnRedial  turnEnd = iota // dial again now (a reconnect was asked for)
	turnPark                   // wait for a reconnect: a retry would not mend it, or the shell exited
	turnBackOff                // wait the backoff, then dial again
	turnStop                   // the limb is closing
)

// turn dials once and serves the session until it ends; lasted says the
// session was up for stableAfter, which resets the backoff. first is
// true until a dial has succeeded.
func (l *Limb) turn(first *bool) (next turnEnd, lasted bool) {
	sess, err := l.dial()
	if err != nil {
		we := asWireError(err)
		l.core.log.Warn("limb dial failed", "limb", l.id, "code", we.Code, "error", we.Message)
		if permanent(err) {
			l.setState(wire.StateFailed, we)
			return turnPark, false
		}
		l.setState(l.stateFor(*first), we)
		return turnBackOff, false
	}
	if !*first {
		l.mu.Lock()
		l.reconnects++
		l.mu.Unlock()
	}
	*first = false
	started := time.Now()
	// A session that ended before it was reported (taken over as it
	// began) goes straight to what ended it: a waiter for "connected"
	// must not be answered by a session that is already gone.
	select {
	case <-sess.Done():
	default:
		l.setState(wire.StateConnected, nil)
	}
	switch l.serve(sess) {
	case endRedial:
		sess.Close()
		l.detachSession(wire.Errorf(wire.NotConnected, "reconnect requested"))
		return turnRedial, false
	case endClosing:
		sess.Close()
		l.detachSession(nil)
		return turnStop, false
	}
	return l.dropped(sess), time.Since(started) >= stableAfter
}

// dropped records a session that ended on its own: a shell that exited,
// a failure a retry would not mend (or a takeover), or a drop to retry.
func (l *Limb) dropped(sess limb.Session) turnEnd {
	if l.part.ended() {
		sess.Close() // the shell is gone; its connection goes too
		l.detachSession(nil)
		l.setState(wire.StateExited, nil)
		return turnPark
	}
	we := asWireError(sess.Err())
	if sess.Err() == nil {
		we = wire.Errorf(wire.NotConnected, "the server closed the connection")
	}
	l.core.log.Warn("limb dropped", "limb", l.id, "code", we.Code, "error", we.Message)
	l.detachSession(we)
	var taken *limb.TakenOverError
	if permanent(we) || errors.As(sess.Err(), &taken) {
		l.setState(wire.StateFailed, we)
		return turnPark
	}
	l.setState(wire.StateReconnecting, we)
	return turnBackOff
}

// How serve ended.
const (
	endDropped = iota // the session ended on its own
	endRedial         // a reconnect was asked for
	endClosing        // the limb is closing
)

// livenessTick is how often a connected session's liveness is read.
const livenessTick = 500 * time.Millisecond

// serve follows a live session until it ends, a reconnect is asked for or
// the limb closes, and says which. Meanwhile a
// session that can tell (limb.Liveness) moves the limb between connected
// and stalled, so nobody reads stale pixels as fresh.
func (l *Limb) serve(sess limb.Session) int {
	live, _ := sess.(limb.Liveness)
	var tick <-chan time.Time
	if live != nil {
		t := time.NewTicker(livenessTick)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-sess.Done():
			return endDropped
		case <-l.redial:
			return endRedial
		case <-l.ctx.Done():
			return endClosing
		case <-tick:
			stalled, silent := live.Stalled()
			l.mu.Lock()
			st := l.state
			l.mu.Unlock()
			switch {
			case stalled && st == wire.StateConnected:
				l.core.log.Warn("limb stalled", "limb", l.id, "silent_ms", silent.Milliseconds())
				l.setState(wire.StateStalled, nil)
			case !stalled && st == wire.StateStalled:
				l.core.log.Info("limb answers again", "limb", l.id)
				l.setState(wire.StateConnected, nil)
			}
		}
	}
}

func (l *Limb) stateFor(first bool) string {
	if first {
		return wire.StateConnecting
	}
	return wire.StateReconnecting
}

// sleepOrRedial waits d (0 = until a reconnect request); false when closing.
func (l *Limb) sleepOrRedial(d time.Duration) bool {
	var timer <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-timer:
		return true
	case <-l.redial:
		return true
	case <-l.ctx.Done():
		return false
	}
}

func (l *Limb) dial() (limb.Session, error) {
	ctx, cancel := context.WithTimeout(l.ctx, 20*time.Second)
	defer cancel()
	l.mu.Lock()
	t := l.target
	t.Perceive = l.perceive
	l.mu.Unlock()
	return l.part.dial(ctx, t)
}

func (l *Limb) detachSession(we *wire.Error) {
	l.mu.Lock()
	l.part.detachLocked()
	if we != nil {
		l.lastErr = &wire.LimbError{Code: we.Code, Message: we.Message, AtMs: time.Now().UnixMilli(), Next: we.Next, Fingerprint: we.Fingerprint}
	}
	l.mu.Unlock()
}

func (l *Limb) setState(s string, we *wire.Error) {
	l.mu.Lock()
	changed := l.state != s
	l.state = s
	if we != nil {
		l.lastErr = &wire.LimbError{Code: we.Code, Message: we.Message, AtMs: time.Now().UnixMilli(), Next: we.Next, Fingerprint: we.Fingerprint}
	} else if s == wire.StateConnected {
		l.lastErr = nil
	}
	close(l.stateCh)
	l.stateCh = make(chan struct{})
	l.mu.Unlock()
	if changed {
		l.core.events.publish(&wire.Event{Kind: "limb.state", LimbID: l.id, Detail: s})
	}
}

// requestRedial asks the run loop to drop and dial again.
func (l *Limb) requestRedial() {
	select {
	case l.redial <- struct{}{}:
	default:
	}
}

// actSettle bounds how long close lets withdrawn intents finish (a key
// release, the rest of a drag) before it ends the session under them.
const actSettle = time.Second

// close withdraws in-flight intents, waits for them to settle and ends
// the session (Daemon.closeLimb also forgets the limb). Idempotent.
func (l *Limb) close() {
	l.actCancel()
	settled := make(chan struct{})
	go func() { l.acts.Wait(); close(settled) }()
	select {
	case <-settled:
	case <-time.After(actSettle):
		// An act is blocked writing to a server that reads nothing:
		// ending the session below fails that write at once.
	}
	l.cancel()
	<-l.exited
	<-settled
	if l.dsk != nil {
		// The mirror goes now, not when the last reference to the limb
		// does: a closed limb's memory is back within seconds.
		l.dsk.buf.Free()
	}
	l.filesMu.Lock()
	if l.files != nil {
		l.files.Close()
		l.files = nil
	}
	l.filesMu.Unlock()
	l.closeStructure()
	l.mu.Lock()
	l.part.forgetLocked(nil)
	if l.lease.holder != nil {
		l.freeLocked("the limb was closed")
	}
	l.state = wire.StateClosed
	l.mu.Unlock()
}

// closeLimb closes l and forgets it: the registry and every attachment
// let go of it before its closing is announced. Idempotent.
func (d *Daemon) closeLimb(l *Limb) {
	l.close()
	d.mu.Lock()
	if d.limbs[l.id] == l {
		delete(d.limbs, l.id)
	}
	for _, a := range d.attachments {
		delete(a.limbs, l.id)
	}
	d.mu.Unlock()
	d.events.publish(&wire.Event{Kind: "limb.state", LimbID: l.id, Detail: wire.StateClosed})
	d.log.Info("limb closed", "limb", l.id)
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

// beginAct registers an intent that close and revocation withdraw. A
// stalled limb takes none: the agent would act on stale pixels, and the
// write could block until the server answers.
func (l *Limb) beginAct() (context.Context, func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == wire.StateClosed || l.actCtx.Err() != nil {
		return nil, nil, wire.Errorf(wire.LimbGone, "limb %s is closing", l.id)
	}
	if l.state == wire.StateStalled {
		return nil, nil, l.notConnectedLocked()
	}
	l.acts.Add(1)
	return l.actCtx, l.acts.Done, nil
}

// stateChanged closes at the limb's next state change.
func (l *Limb) stateChanged() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stateCh
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
