package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/imaging"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// LimbID is reproducible: the same machine (protocol, address, port) at the
// same slot gets the same id, after a reconnect or a daemon restart.
func LimbID(protocol, address string, port, slot int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%d|%d", protocol, strings.ToLower(address), port, slot)))
	return protocol + "-" + hex.EncodeToString(sum[:4])
}

// Limb is one live connection to one machine, kept up across drops.
type Limb struct {
	d      *Daemon
	id     string
	target limb.Target
	kind   string // desktop or terminal

	buf *fb.Buffer          // desktop limbs: the mirror, kept across reconnects
	enc imaging.EncodeCache // recent encodes of the mirror
	txt textReaders         // recognised text of the mirror, per language

	mu         sync.Mutex
	state      string
	lastErr    *wire.LimbError
	reconnects int
	desk       limb.Desktop
	term       limb.Terminal
	stateCh    chan struct{} // closed at every state change
	perceive   bool
	redial     chan struct{}
	exitCode   *int       // a terminal's shell exit status, once it ended
	files      limb.Files // SFTP, opened on first use
	filesMu    sync.Mutex

	lease  leaseState
	fences map[*attachment]*fence
	share  *share    // RFB re-share, once started (share.go)
	actLog actLog    // recent agent acts for the viewer (acts.go)
	paused bool      // a person paused agent input on this limb (pause.go)
	rec    *recorder // the running recording, if any (record.go)

	acts      sync.WaitGroup
	actCtx    context.Context
	actCancel context.CancelFunc

	history history
	ctx     context.Context
	cancel  context.CancelFunc
	exited  chan struct{} // closed when the run loop ended
}

// A limb's kind is its protocol's (wire.Protocols).
const (
	kindDesktop  = wire.KindDesktop
	kindTerminal = wire.KindTerminal
)

func defaultPort(proto string) int {
	if p, ok := wire.Protocol(proto); ok {
		return p.DefaultPort
	}
	return 0
}

// openLimb returns the limb for a target, starting it when it is new. It
// returns as soon as the session task runs.
func (d *Daemon) openLimb(t limb.Target) (*Limb, error) {
	kind := kindDesktop
	if p, ok := wire.Protocol(t.Protocol); ok && p.Kind == kindTerminal {
		kind = kindTerminal
		if d.cfg.Terminal == nil {
			return nil, wire.Errorf(wire.Unsupported, "this dvvd was built without SSH support")
		}
	} else if d.cfg.Desktop[t.Protocol] == nil {
		return nil, wire.Errorf(wire.Unsupported, "this dvvd was built without %s support", t.Protocol)
	}
	id := LimbID(t.Protocol, t.Address, t.Port, t.Slot)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closing {
		return nil, wire.Errorf(wire.NotReady, "dvvd is shutting down")
	}
	if l := d.limbs[id]; l != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		if err := l.adoptCredential(t); err != nil {
			return nil, err
		}
		if t.Perceive && !l.perceive {
			l.perceive = true
		}
		return l, nil
	}
	ctx, cancel := context.WithCancel(d.ctx)
	l := &Limb{d: d, id: id, target: t, kind: kind, state: wire.StateConnecting, stateCh: make(chan struct{}),
		perceive: t.Perceive, redial: make(chan struct{}, 1), fences: map[*attachment]*fence{},
		ctx: ctx, cancel: cancel, exited: make(chan struct{})}
	l.actCtx, l.actCancel = context.WithCancel(ctx)
	if kind == kindDesktop {
		l.buf = fb.New()
		l.buf.SetMaxPixels(d.cfg.MaxFramebufferPixels)
	}
	d.limbs[id] = l
	go l.run()
	d.log.Info("limb opened", "limb", id, "protocol", t.Protocol, "address", t.Address, "port", t.Port, "slot", t.Slot)
	return l, nil
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
	for {
		if l.ctx.Err() != nil {
			return
		}
		if !first {
			l.setState(wire.StateReconnecting, nil)
			if l.buf != nil {
				// Coverage counts from the new connection: the old pixels
				// may be stale, so they are cleared (same size, same
				// generation) and every reader's fence arms.
				if w, h := l.buf.Size(); w > 0 {
					l.buf.Resize(w, h)
				}
			}
		}
		sess, err := l.dial()
		if err != nil {
			we := asWireError(err)
			l.d.log.Warn("limb dial failed", "limb", l.id, "code", we.Code, "error", we.Message)
			if permanent(err) {
				l.setState(wire.StateFailed, we)
				if !l.sleepOrRedial(0) {
					return
				}
				backoff = backoffMin
				continue
			}
			l.setState(l.stateFor(first), we)
			if !l.sleepOrRedial(backoff) {
				return
			}
			backoff = min(backoff*2, backoffMax)
			continue
		}
		if !first {
			l.mu.Lock()
			l.reconnects++
			l.mu.Unlock()
		}
		first = false
		started := time.Now()
		l.setState(wire.StateConnected, nil)
		switch l.serve(sess) {
		case endDropped:
			if l.shellExited() {
				sess.Close() // the shell is gone; its connection goes too
				l.detachSession(nil)
				l.setState(wire.StateExited, nil)
				if !l.sleepOrRedial(0) {
					return
				}
				backoff = backoffMin
				continue
			}
			we := asWireError(sess.Err())
			if sess.Err() == nil {
				we = wire.Errorf(wire.NotConnected, "the server closed the connection")
			}
			l.d.log.Warn("limb dropped", "limb", l.id, "code", we.Code, "error", we.Message)
			l.detachSession(we)
			var taken *limb.TakenOverError
			if permanent(we) || errors.As(sess.Err(), &taken) {
				l.setState(wire.StateFailed, we)
				if !l.sleepOrRedial(0) {
					return
				}
				backoff = backoffMin
				continue
			}
			if time.Since(started) >= stableAfter {
				backoff = backoffMin
			}
			l.setState(wire.StateReconnecting, we)
			if !l.sleepOrRedial(backoff) {
				return
			}
			backoff = min(backoff*2, backoffMax)
		case endRedial:
			sess.Close()
			l.detachSession(wire.Errorf(wire.NotConnected, "reconnect requested"))
			backoff = backoffMin
		case endClosing:
			sess.Close()
			l.detachSession(nil)
			return
		}
	}
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
				l.d.log.Warn("limb stalled", "limb", l.id, "silent_ms", silent.Milliseconds())
				l.setState(wire.StateStalled, nil)
			case !stalled && st == wire.StateStalled:
				l.d.log.Info("limb answers again", "limb", l.id)
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
	if l.kind == kindTerminal {
		term, err := l.d.cfg.Terminal(ctx, t)
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		l.term, l.exitCode = term, nil
		l.mu.Unlock()
		return term, nil
	}
	desk, err := l.d.cfg.Desktop[t.Protocol](ctx, t, l.buf)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.desk = desk
	l.mu.Unlock()
	return desk, nil
}

func (l *Limb) detachSession(we *wire.Error) {
	l.mu.Lock()
	l.desk, l.term = nil, nil
	if we != nil {
		l.lastErr = &wire.LimbError{Code: we.Code, Message: we.Message, AtMs: time.Now().UnixMilli()}
	}
	l.mu.Unlock()
}

func (l *Limb) setState(s string, we *wire.Error) {
	l.mu.Lock()
	changed := l.state != s
	l.state = s
	if we != nil {
		l.lastErr = &wire.LimbError{Code: we.Code, Message: we.Message, AtMs: time.Now().UnixMilli()}
	} else if s == wire.StateConnected {
		l.lastErr = nil
	}
	close(l.stateCh)
	l.stateCh = make(chan struct{})
	l.mu.Unlock()
	if changed {
		l.d.events.publish(&wire.Event{Kind: "limb.state", LimbID: l.id, Detail: s})
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

// close withdraws in-flight intents, waits for them to settle, ends the
// session and forgets the limb. Idempotent.
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
	l.filesMu.Lock()
	if l.files != nil {
		l.files.Close()
		l.files = nil
	}
	l.filesMu.Unlock()
	l.mu.Lock()
	for a, f := range l.fences {
		f.close()
		delete(l.fences, a)
	}
	if l.lease.holder != nil {
		l.freeLocked("the limb was closed")
	}
	l.state = wire.StateClosed
	l.mu.Unlock()
	l.d.mu.Lock()
	if l.d.limbs[l.id] == l {
		delete(l.d.limbs, l.id)
	}
	for _, a := range l.d.attachments {
		delete(a.limbs, l.id)
	}
	l.d.mu.Unlock()
	l.d.events.publish(&wire.Event{Kind: "limb.state", LimbID: l.id, Detail: wire.StateClosed})
	l.d.log.Info("limb closed", "limb", l.id)
}

// desktop returns the live desktop session or a coded reason there is none.
func (l *Limb) desktop() (limb.Desktop, error) {
	if l.kind != kindDesktop {
		return nil, wire.Errorf(wire.WrongProtocol, "limb %s is a terminal; use run, term_send or term_read", l.id)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.desk == nil {
		return nil, l.notConnectedLocked()
	}
	return l.desk, nil
}

// terminal returns the live terminal session or a coded reason.
func (l *Limb) terminal() (limb.Terminal, error) {
	if l.kind != kindTerminal {
		return nil, wire.Errorf(wire.WrongProtocol, "limb %s is a desktop; terminal ops need an ssh limb", l.id)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.term == nil {
		return nil, l.notConnectedLocked()
	}
	return l.term, nil
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

// generation is the geometry generation: 1 for the first size, +1 for each
// change. Before any size is known it is 0.
func (l *Limb) generation() uint64 {
	if l.buf == nil {
		return 0
	}
	return l.buf.Resizes()
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

// shellExited records a terminal's exit status when its shell ended (as
// opposed to the connection dropping). An exited shell is not redialled
// until a reconnect asks for a new one.
func (l *Limb) shellExited() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.term == nil {
		return false
	}
	code, exited := l.term.Exited()
	if exited {
		l.exitCode = &code
	}
	return exited
}

// lastExit is the exit status of the terminal's shell, once it ended.
func (l *Limb) lastExit() (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.exitCode != nil {
		return *l.exitCode, true
	}
	if l.term != nil {
		if code, exited := l.term.Exited(); exited {
			return code, true
		}
	}
	return 0, false
}

// adopt applies a saved host's settings to a limb that was already open
// for the same endpoint (by address, or by another saved host). The SSH
// sidecar takes effect at once (an open SFTP session is dropped and the
// next files call dials the new one); a different login is not switched
// under a live session. It returns what the caller should be told, or "".
func (l *Limb) adopt(t limb.Target) string {
	l.mu.Lock()
	cur := l.target
	var notes []string
	sidecar := false
	if t.SSHPort != 0 && t.SSHPort != cur.SSHPort {
		l.target.SSHPort, sidecar = t.SSHPort, true
	}
	if t.SSHUser != "" && t.SSHUser != cur.SSHUser {
		l.target.SSHUser, sidecar = t.SSHUser, true
	}
	if (t.User != "" && t.User != cur.User) || (t.Domain != "" && t.Domain != cur.Domain) {
		who := cur.User
		if who == "" {
			who = "no user"
		}
		notes = append(notes, fmt.Sprintf("limb %s was already open as %s; the saved host's login (%s) was not applied to the live session: close the limb and open the saved host again to log in with it", l.id, who, t.User))
	}
	l.mu.Unlock()
	if sidecar {
		l.filesMu.Lock()
		if l.files != nil {
			l.files.Close()
			l.files = nil
		}
		l.filesMu.Unlock()
		notes = append([]string{fmt.Sprintf("limb %s was already open; the saved host's SSH sidecar now serves its files", l.id)}, notes...)
	}
	return strings.Join(notes, "; ")
}

// adoptCredential decides what opening an endpoint that already has a limb
// does to the limb's credential (l.mu held). One limb is one session at one
// endpoint, so it has one account: an open without a credential joins it as
// it is; a limb without one takes the new one whole (user, domain and
// password together); the same account may bring a newer password (the
// user fixed it); another account is refused, never mixed in (a second
// saved host on the same endpoint must not send its password under the
// first host's user name).
func (l *Limb) adoptCredential(t limb.Target) error {
	cur := &l.target
	newHas := t.User != "" || t.Domain != "" || t.Password != ""
	curHas := cur.User != "" || cur.Domain != "" || cur.Password != ""
	switch {
	case !newHas:
	case !curHas:
		cur.User, cur.Domain, cur.Password = t.User, t.Domain, t.Password
	case cur.User == t.User && cur.Domain == t.Domain:
		if t.Password != "" {
			cur.Password = t.Password
		}
	default:
		e := wire.Errorf(wire.BadRequest, "limb %s is already open at this endpoint with another account (user %q); one limb never mixes two credentials",
			l.id, accountName(cur.Domain, cur.User))
		e.Next = fmt.Sprintf("close it first (dvv close %s), or, on RDP, open the other account with another slot", l.id)
		return e
	}
	return nil
}

func accountName(domain, user string) string {
	if domain != "" {
		return domain + `\` + user
	}
	return user
}
