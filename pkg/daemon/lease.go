package daemon

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

func (l *Limb) leaseView(a *attachment) wire.Lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.leaseViewLocked(a)
}

func (l *Limb) leaseViewLocked(a *attachment) wire.Lease {
	ls := &l.lease
	v := wire.Lease{HumanTookOver: ls.human, Reason: ls.reason}
	if l.pausedLocked() {
		v.HumanTookOver, v.Reason = true, "a person paused agent input"
	}
	if ls.holder != nil {
		v.Holder = ls.holder.name
		v.Held = ls.holder == a
		v.SinceMs = ls.since.UnixMilli()
	}
	return v
}

// acquire grants the lease to a, waiting up to wait for another agent to
// release it. A person's hold is never waited for: agent input is refused,
// not queued, while a person drives.
func (l *Limb) acquire(ctx context.Context, a *attachment, reason string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		l.mu.Lock()
		ls := &l.lease
		switch {
		case !a.person.Load() && l.pausedLocked():
			e := wire.Errorf(wire.LeaseNotHeld, "a person paused agent input on limb %s; it is refused until they resume", l.id)
			e.Next = l.pausedNextLocked(a)
			l.mu.Unlock()
			return e
		case ls.holder == nil || ls.holder == a:
			changed := ls.holder == nil
			if changed {
				ls.since = time.Now()
			}
			ls.holder, ls.reason, ls.human = a, reason, a.person.Load()
			delete(ls.revoked, a)
			l.mu.Unlock()
			if changed { // events describe changes: holding it again is none
				l.core.events.publish(&wire.Event{Kind: "lease", LimbID: l.id, Detail: "acquired by " + a.name})
			}
			return nil
		case ls.human && !a.person.Load():
			holder := ls.holder.name
			l.mu.Unlock()
			return wire.Errorf(wire.LeaseNotHeld, "a person (%s) is driving limb %s; agent input is refused while they hold control", holder, l.id)
		}
		if ls.freed == nil {
			ls.freed = make(chan struct{})
		}
		freed, holder := ls.freed, ls.holder.name
		l.mu.Unlock()
		left := time.Until(deadline)
		if left <= 0 && wait > 0 {
			// The tool reference names TIMEOUT for a wait that ran out;
			// waitMs 0 asked not to wait and is refused as not held.
			return &wire.Error{Code: wire.Timeout, Message: fmt.Sprintf("waited %v for limb %s's lease; %s still holds it", wait, l.id, holder),
				Next: "Call `control` with action yield_status to see who holds it, then acquire again with a longer waitMs or leave it."}
		}
		if left <= 0 {
			e := wire.Errorf(wire.LeaseNotHeld, "limb %s's lease is held by %s", l.id, holder)
			l.mu.Lock()
			if next := l.heldElsewhereLocked(a); next != "" {
				e.Next = next
			}
			l.mu.Unlock()
			return e
		}
		t := time.NewTimer(left)
		select {
		case <-freed:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return wire.Errorf(wire.Timeout, "gave up waiting for the lease of limb %s", l.id)
		}
		t.Stop()
	}
}

// release gives the lease back when a holds it. It is not an error to
// release a lease one does not hold (release is idempotent).
func (l *Limb) release(a *attachment, reason string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := &l.lease
	if ls.holder != a {
		return false
	}
	l.freeLocked(reason)
	return true
}

func (l *Limb) freeLocked(reason string) {
	ls := &l.lease
	ls.holder, ls.human, ls.reason = nil, false, reason
	if ls.freed != nil {
		close(ls.freed)
		ls.freed = nil
	}
	l.core.events.publish(&wire.Event{Kind: "lease", LimbID: l.id, Detail: "released"})
}

// takeover gives the lease to a person at once. The agent that held it is
// revoked: its in-flight intents are withdrawn and its next act answers
// LEASE_REVOKED.
func (l *Limb) takeover(a *attachment, reason string) {
	a.person.Store(true)
	l.mu.Lock()
	ls := &l.lease
	changed := ls.holder != a || !ls.human
	if prev := ls.holder; prev != nil && prev != a {
		if ls.revoked == nil {
			ls.revoked = map[*attachment]bool{}
		}
		ls.revoked[prev] = true
		// Withdraw every intent in flight, then start a fresh act context:
		// a drag half-way through must not finish under the person's hand.
		l.withdrawActsLocked()
	}
	ls.holder, ls.human, ls.since = a, true, time.Now()
	if reason == "" {
		reason = "a person took over"
	}
	ls.reason = reason
	l.mu.Unlock()
	if changed {
		l.core.events.publish(&wire.Event{Kind: "lease", LimbID: l.id, Detail: "taken over by " + a.name})
	}
}

// resetLease starts the lease afresh after a reconnect: whoever held it
// holds it no more (an agent other than by, the one asking, hears
// LEASE_REVOKED once). A person's hold is kept: an agent's reconnect never
// takes control away from a person.
func (l *Limb) resetLease(by *attachment, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := &l.lease
	if ls.holder == nil || (ls.human && ls.holder != by) {
		return
	}
	// The old session's screen is gone: an agent acting on what it last
	// saw must re-read first, so the lease does not carry over.
	if ls.holder != by {
		if ls.revoked == nil {
			ls.revoked = map[*attachment]bool{}
		}
		ls.revoked[ls.holder] = true
	}
	l.freeLocked(reason)
}

// checkLease is the gate of every act: LEASE_REVOKED once after the lease
// was taken away from a, then LEASE_NOT_HELD.
func (l *Limb) checkLease(a *attachment) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := &l.lease
	if !a.person.Load() && l.pausedLocked() {
		e := wire.Errorf(wire.LeaseRevoked, "a person paused agent input on limb %s; nothing was delivered", l.id)
		e.Next = l.pausedNextLocked(a)
		return e
	}
	if ls.holder == a {
		return nil
	}
	if ls.revoked[a] {
		delete(ls.revoked, a)
		by := "the lease was revoked"
		if ls.human && ls.holder != nil {
			by = fmt.Sprintf("a person (%s) took over", ls.holder.name)
		}
		e := wire.Errorf(wire.LeaseRevoked, "%s on limb %s; nothing was delivered", by, l.id)
		return e
	}
	holder := "nobody"
	if ls.holder != nil {
		holder = ls.holder.name
	}
	e := wire.Errorf(wire.LeaseNotHeld, "acting on limb %s needs the control lease (held by %s)", l.id, holder)
	if next := l.heldElsewhereLocked(a); next != "" {
		e.Next = next
	}
	return e
}

// heldElsewhereLocked is LEASE_NOT_HELD's hint when another attachment holds
// the lease: how to act in the session that holds it, or get it ("" when
// nobody holds it: then acquiring is the whole answer). A session's key is
// named only to an attachment of the same token, the one that could join
// it anyway.
func (l *Limb) heldElsewhereLocked(a *attachment) string {
	h := l.lease.holder
	switch {
	case h == nil || h == a:
		return ""
	case l.lease.human:
		return fmt.Sprintf("A person (%s) is driving limb %s: leave it to them until they hand back (`dvv control status %s` shows it; an agent's acts are refused meanwhile).", h.name, l.id, l.id)
	case h.session != "" && h.grant.TokenID == a.grant.TokenID:
		return fmt.Sprintf("Another session (%s) holds limb %s. Run the command in that session, or act as it: export DVV_SESSION=%s (or `dvv --session %s …`); "+
			"else wait for it to let go (`dvv control acquire %s --wait 30s`) or take it as a person (`dvv control takeover %s`).",
			h.name, l.id, shellQuote(h.session), shellQuote(h.session), l.id, l.id)
	}
	return fmt.Sprintf("%s holds limb %s. Wait for it to let go (`dvv control acquire %s --wait 30s`; `control` acquire with waitMs) or take it as a person (`dvv control takeover %s`).", h.name, l.id, l.id, l.id)
}

// pausedNextLocked is the hint of an act refused by a pause. A pause takes
// no lease away: whoever held it holds it when the person resumes (`dvv
// resume`), so the agent waits and acts again, with no acquire.
func (l *Limb) pausedNextLocked(a *attachment) string {
	if l.lease.holder == a {
		return fmt.Sprintf("Stop and wait: your lease is kept while paused, and your next act after the person runs `dvv resume` goes through with no acquire (`dvv control status %s` shows human_took_over until then).", l.id)
	}
	return fmt.Sprintf("Stop and wait for the person to run `dvv resume` (`dvv control status %s` shows human_took_over until then), then acquire the lease.", l.id)
}

// shellQuote quotes a session key for a command line when it needs it.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(":-_.,/+=@", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
