package daemon

import (
	"fmt"
	"sync"
	"time"
)

// The share's TCP port is open to every local user; only the one-time
// password keeps them out. shareGuard bounds what guessing costs: a few
// viewers at a time may be mid-handshake, and after shareFailuresAllowed
// wrong passwords in a row the port refuses every attempt (the right
// password too) for a while, twice as long at each new block, as TigerVNC
// blacklists a peer after 5 failures.
//
// Both are kept per local user: the kernel names the uid at the far end
// of a loopback connection (peeruid.Loopback), so another user who fills
// the handshake slots or guesses until blocked keeps only itself out,
// never the person dvvd runs for. A peer whose uid cannot be read counts
// as one unknown user.
type shareGuard struct {
	mu    sync.Mutex
	peers map[int]*peerGuard
}

type peerGuard struct {
	pending      int // connections that have not answered the challenge yet
	failures     int // wrong passwords since the last block or success
	blockedUntil time.Time
	nextBlock    time.Duration
}

const (
	maxShareHandshakes   = 8
	shareHandshakeTime   = 10 * time.Second
	shareFailuresAllowed = 5
	shareBlockFirst      = 10 * time.Second
	shareBlockMax        = 5 * time.Minute
	unknownPeer          = -1
)

// peer is uid's state; the caller holds g.mu. Only a uid with
// something to remember is kept (see forget), so the map stays as small
// as the set of users currently connecting or blocked.
func (g *shareGuard) peer(uid int) *peerGuard {
	if g.peers == nil {
		g.peers = map[int]*peerGuard{}
	}
	p := g.peers[uid]
	if p == nil {
		p = &peerGuard{}
		g.peers[uid] = p
	}
	return p
}

func (g *shareGuard) forget(uid int, p *peerGuard) {
	if p.pending == 0 && p.failures == 0 && p.nextBlock == 0 {
		delete(g.peers, uid)
	}
}

// admit counts a new connection of uid in, or reports false when too
// many of that user's are still in their handshake.
func (g *shareGuard) admit(uid int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.peer(uid)
	if p.pending >= maxShareHandshakes {
		return false
	}
	p.pending++
	return true
}

func (g *shareGuard) handshakeOver(uid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.peer(uid)
	p.pending--
	g.forget(uid, p)
}

// gate refuses uid's viewer while that user is blocked, saying for how
// long.
func (g *shareGuard) gate(uid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if left := time.Until(g.peer(uid).blockedUntil); left > 0 {
		return fmt.Errorf("too many wrong passwords on this share; it refuses every attempt for %d s more", int(left.Seconds())+1)
	}
	return nil
}

// attempt checks one answer of uid's with check, unless that user is
// blocked (the answer is then not even tried, so a block also stops
// guesses already under way), and counts the outcome.
func (g *shareGuard) attempt(uid int, check func() (ok, viewOnly bool)) (ok, viewOnly bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.peer(uid)
	now := time.Now()
	if now.Before(p.blockedUntil) {
		return false, false
	}
	if ok, viewOnly = check(); ok {
		p.failures, p.nextBlock = 0, 0
		return ok, viewOnly
	}
	p.failures++
	if p.failures >= shareFailuresAllowed {
		if p.nextBlock == 0 {
			p.nextBlock = shareBlockFirst
		}
		p.blockedUntil = now.Add(p.nextBlock)
		p.nextBlock = min(p.nextBlock*2, shareBlockMax)
		p.failures = 0
	}
	return false, false
}
