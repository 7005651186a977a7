package viewer

import (
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/peeruid"
)

// The viewer's port is open to every local user, secret or not. These
// limits keep a flood of connections on it from using up dvvd's file
// descriptors (which the control socket, the limbs and the shares need)
// or its memory: a cap on open connections, headers bounded in size and
// time, idle connections closed, and request bodies read no further than
// a control request needs.
const (
	headerTimeout = 10 * time.Second
	idleTimeout   = 2 * time.Minute
	maxHeader     = 16 << 10
	maxBody       = 64 << 10 // no route reads a body; what a client sends is dropped past this
)

// connCap is how many connections the viewer keeps open at once: a
// quarter of the file descriptors dvvd may open, between 16 and 512. It is
// read at every accept, so a limit lowered while dvvd runs is followed.
func connCap() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 256
	}
	return int(min(max(rl.Cur/4, 16), 512))
}

// limit sets srv's timeouts and size bounds and wraps ln so it holds at
// most connCap connections. When they are all taken, the oldest one that
// is not serving a request (none sent yet, or idle between two) is closed
// for the newcomer, so a flood of silent connections cannot lock out the
// browser, whose connections send their request at once. When every one
// is busy (another user can keep a connection busy for ever by asking for
// pages and never reading them), a newcomer of dvvd's own user, the
// person's browser, takes the place of the oldest connection of another
// user; anyone else's newcomer is closed. Another user's newcomer never
// closes a connection of dvvd's own user.
func limit(srv *http.Server, ln net.Listener) net.Listener {
	srv.ReadHeaderTimeout, srv.IdleTimeout, srv.MaxHeaderBytes = headerTimeout, idleTimeout, maxHeader
	next := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		next.ServeHTTP(w, r)
	})
	l := &capListener{Listener: ln, cap: connCap, open: map[*cappedConn]struct{}{}, peerUID: loopbackUID, own: os.Getuid()}
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		if cc, ok := c.(*cappedConn); ok {
			l.mu.Lock()
			cc.state = st
			l.mu.Unlock()
		}
	}
	return l
}

type capListener struct {
	net.Listener
	cap     func() int
	peerUID func(net.Conn) int // the connecting user (unknownUID when it cannot be read)
	own     int                // dvvd's user: the person's browser
	mu      sync.Mutex
	open    map[*cappedConn]struct{}
}

const unknownUID = -1

func loopbackUID(c net.Conn) int {
	if uid, ok := peeruid.Loopback(c); ok {
		return uid
	}
	return unknownUID
}

type cappedConn struct {
	net.Conn
	l        *capListener
	accepted time.Time
	uid      int
	state    http.ConnState // guarded by l.mu
	once     sync.Once
}

func (c *cappedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.open, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// Accept passes errors through: http.Server pauses and retries on them
// (out of file descriptors included) rather than stopping.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid := l.peerUID(c)
		l.mu.Lock()
		var victim *cappedConn
		if len(l.open) >= l.cap() {
			for o := range l.open {
				// Another user's newcomer never makes room at the
				// person's expense, not even of a connection that has
				// just been accepted and has yet to send its request.
				mayClose := uid == l.own || o.uid != l.own
				if mayClose && (o.state == http.StateNew || o.state == http.StateIdle) && (victim == nil || o.accepted.Before(victim.accepted)) {
					victim = o
				}
			}
			if victim == nil && uid == l.own {
				for o := range l.open {
					if o.uid != l.own && (victim == nil || o.accepted.Before(victim.accepted)) {
						victim = o
					}
				}
			}
			if victim == nil {
				l.mu.Unlock()
				c.Close()
				continue
			}
			delete(l.open, victim)
		}
		cc := &cappedConn{Conn: c, l: l, accepted: time.Now(), uid: uid}
		l.open[cc] = struct{}{}
		l.mu.Unlock()
		if victim != nil {
			victim.Conn.Close()
		}
		return cc, nil
	}
}
