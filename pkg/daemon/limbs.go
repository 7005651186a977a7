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

	acts      sync.WaitGroup
	actCtx    context.Context
	actCancel context.CancelFunc

	history history
	ctx     context.Context
	cancel  context.CancelFunc
	exited  chan struct{} // closed when the run loop ended
}

const (
	kindDesktop  = "desktop"
	kindTerminal = "terminal"
)

func defaultPort(proto string) int {
	switch proto {
	case wire.ProtoRDP:
		return 3389
	case wire.ProtoSSH:
		return 22
	}
	return 5900
}

// openLimb returns the limb for a target, starting it when it is new. It
// returns as soon as the session task runs.
func (d *Daemon) openLimb(t limb.Target) (*Limb, error) {
	kind := kindDesktop
	if t.Protocol == wire.ProtoSSH {
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
		if t.Perceive && !l.perceive {
			l.perceive = true
		}
		if t.Password != "" {
			l.target.Password = t.Password
		}
		l.mu.Unlock()
		return l, nil
	}
	ctx, cancel := context.WithCancel(d.ctx)
	l := &Limb{d: d, id: id, target: t, kind: kind, state: wire.StateConnecting, stateCh: make(chan struct{}),
		perceive: t.Perceive, redial: make(chan struct{}, 1), fences: map[*attachment]*fence{},
		ctx: ctx, cancel: cancel, exited: make(chan struct{})}
	l.actCtx, l.actCancel = context.WithCancel(ctx)
	if kind == kindDesktop {
		l.buf = fb.New()
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

// run keeps the limb connected: dial, serve until the session drops, back
// off, dial again — same id, same framebuffer. Permanent failures stop it in
// state failed until a reconnect asks again.
func (l *Limb) run() {
	defer close(l.exited)
	backoff := 250 * time.Millisecond
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
				backoff = 250 * time.Millisecond
				continue
			}
			l.setState(l.stateFor(first), we)
			if !l.sleepOrRedial(backoff) {
				return
			}
			backoff = min(backoff*2, 10*time.Second)
			continue
		}
		if !first {
			l.mu.Lock()
			l.reconnects++
			l.mu.Unlock()
		}
		first = false
		backoff = 250 * time.Millisecond
		l.setState(wire.StateConnected, nil)
		select {
		case <-sess.Done():
			if l.shellExited() {
				l.detachSession(nil)
				l.setState(wire.StateExited, nil)
				if !l.sleepOrRedial(0) {
					return
				}
				continue
			}
			we := asWireError(sess.Err())
			if sess.Err() == nil {
				we = wire.Errorf(wire.NotConnected, "the server closed the connection")
			}
			l.d.log.Warn("limb dropped", "limb", l.id, "code", we.Code, "error", we.Message)
			l.detachSession(we)
			if permanent(we) {
				l.setState(wire.StateFailed, we)
				if !l.sleepOrRedial(0) {
					return
				}
			}
		case <-l.redial:
			sess.Close()
			l.detachSession(wire.Errorf(wire.NotConnected, "reconnect requested"))
		case <-l.ctx.Done():
			sess.Close()
			l.detachSession(nil)
			return
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

// close withdraws in-flight intents, waits for them to settle, ends the
// session and forgets the limb. Idempotent.
func (l *Limb) close() {
	l.actCancel()
	l.acts.Wait()
	l.cancel()
	<-l.exited
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

// beginAct registers an intent that close and revocation withdraw.
func (l *Limb) beginAct() (context.Context, func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == wire.StateClosed || l.actCtx.Err() != nil {
		return nil, nil, wire.Errorf(wire.LimbGone, "limb %s is closing", l.id)
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
