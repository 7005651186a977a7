package daemon

import (
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/rfbserver"
)

// The share's TCP port is open to every local user; only the one-time
// password keeps them out. shareGuard bounds what guessing costs: a few
// viewers at a time may be mid-handshake, and after shareFailuresAllowed
// wrong passwords in a row the port refuses every attempt (the right
// password too) for a while, twice as long at each new block, as TigerVNC
// blacklists a peer after 5 failures. Every peer on 127.0.0.1 looks the
// same, so the block is the listener's, not one peer's.
type shareGuard struct {
	mu           sync.Mutex
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
)

// admit counts a new connection in, or reports false when too many are
// still in their handshake.
func (g *shareGuard) admit() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pending >= maxShareHandshakes {
		return false
	}
	g.pending++
	return true
}

func (g *shareGuard) handshakeOver() {
	g.mu.Lock()
	g.pending--
	g.mu.Unlock()
}

// gate refuses a viewer while the port is blocked, saying for how long.
func (g *shareGuard) gate() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if left := time.Until(g.blockedUntil); left > 0 {
		return fmt.Errorf("too many wrong passwords on this share; it refuses every attempt for %d s more", int(left.Seconds())+1)
	}
	return nil
}

// attempt checks one answer with check, unless the port is blocked (the
// answer is then not even tried, so a block also stops guesses already
// under way), and counts the outcome.
func (g *shareGuard) attempt(check func() (ok, viewOnly bool)) (ok, viewOnly bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	if now.Before(g.blockedUntil) {
		return false, false
	}
	if ok, viewOnly = check(); ok {
		g.failures, g.nextBlock = 0, 0
		return ok, viewOnly
	}
	g.failures++
	if g.failures >= shareFailuresAllowed {
		if g.nextBlock == 0 {
			g.nextBlock = shareBlockFirst
		}
		g.blockedUntil = now.Add(g.nextBlock)
		g.nextBlock = min(g.nextBlock*2, shareBlockMax)
		g.failures = 0
	}
	return false, false
}

// serveTCP serves one viewer of the TCP port: through the guard, with a
// shorter handshake than the private sockets allow.
func (sh *share) serveTCP(c net.Conn) {
	g := &sh.guard
	if !g.admit() {
		c.Close()
		return
	}
	var once sync.Once
	over := func() { once.Do(g.handshakeOver) }
	cfg := rfbserver.Config{Gate: g.gate, HandshakeTimeout: shareHandshakeTime,
		Auth: func(ch, resp []byte) (bool, bool) {
			defer over()
			return g.attempt(func() (bool, bool) { return sh.checkPassword(ch, resp) })
		}}
	sh.serve(c, cfg, over)
}
