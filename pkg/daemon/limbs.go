package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

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
