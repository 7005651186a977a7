package daemon

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/peeruid"
	"github.com/dvvhq/dvv/pkg/rfbserver"
	"github.com/dvvhq/dvv/pkg/sock"
	"github.com/dvvhq/dvv/pkg/wire"
)

// An rfbShare serves one desktop limb's mirror to VNC viewers (pkg/rfbserver)
// with no second connection to the machine: on two Unix sockets of this
// user (interactive and view-only) and, on request, on a loopback TCP port
// where each viewer needs a one-time password. A viewer's input makes a
// person take the limb over; the last driving viewer leaving hands it back.
type rfbShare struct {
	l    *Limb
	seat *seat // the person at a VNC viewer

	socket, viewSocket string

	mu        sync.Mutex
	tcp       net.Listener
	guard     shareGuard // the TCP port's connection cap and password blocks
	passwords map[string]oneTime
	viewers   int
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

type oneTime struct {
	viewOnly bool
	expires  time.Time
}

const (
	sharePasswordTTL = 10 * time.Minute
	maxSharePassword = 16 // outstanding one-time passwords per limb
	maxShareViewers  = 32
)

// shares are the desktop limbs' shares, each once started. The daemon
// keeps them rather than the limb: a share drives its limb's lease, so it
// sits above the limb.
type shares struct {
	mu sync.Mutex
	of map[*Limb]*rfbShare
}

// start returns the limb's share, starting its Unix sockets the first
// time.
func (r *shares) start(l *Limb) (*rfbShare, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sh := r.of[l]; sh != nil {
		return sh, nil
	}
	dir := filepath.Dir(l.core.SocketPath())
	base := filepath.Join(dir, l.core.cfg.ID+"-share-"+l.id)
	// A child of the limb's context: closing the limb ends the share, its
	// listeners and its viewers without share code in close.
	ctx, cancel := context.WithCancel(l.ctx)
	sh := &rfbShare{l: l, socket: base + ".sock", viewSocket: base + "-view.sock", passwords: map[string]oneTime{},
		seat: newSeat(l, newPerson("person at a VNC viewer"), "a person is driving from a VNC viewer"), ctx: ctx, cancel: cancel}
	for _, s := range []struct {
		path     string
		viewOnly bool
	}{{sh.socket, false}, {sh.viewSocket, true}} {
		if len(s.path) > maxSocketPath {
			cancel()
			return nil, &wire.Error{Code: wire.BadRequest, Message: errSocketPathTooLong(s.path).Error(),
				Next: "restart dvvd with a shorter XDG_RUNTIME_DIR or --socket path"}
		}
		ln, err := listen(s.path)
		if err != nil {
			cancel()
			return nil, wire.Errorf(wire.Internal, "cannot listen on %s: %v", s.path, err)
		}
		context.AfterFunc(ctx, func() { ln.Close() })
		viewOnly := s.viewOnly
		sh.wg.Add(1)
		go sh.acceptUnix(ln, viewOnly)
	}
	if r.of == nil {
		r.of = map[*Limb]*rfbShare{}
	}
	r.of[l] = sh
	context.AfterFunc(ctx, func() { r.drop(l, sh) })
	return sh, nil
}

// stop stops the limb's share and says whether it had one.
func (r *shares) stop(l *Limb) bool {
	r.mu.Lock()
	sh := r.of[l]
	delete(r.of, l)
	r.mu.Unlock()
	if sh != nil {
		sh.stop()
	}
	return sh != nil
}

// drop forgets a share whose limb closed.
func (r *shares) drop(l *Limb, sh *rfbShare) {
	r.mu.Lock()
	if r.of[l] == sh {
		delete(r.of, l)
	}
	r.mu.Unlock()
}

func (sh *rfbShare) acceptUnix(ln *net.UnixListener, viewOnly bool) {
	defer sh.wg.Done()
	var pause time.Duration
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			if acceptRetry(err, &pause, sh.ctx.Done(), sh.l.core.log.Warn) {
				continue
			}
			return
		}
		pause = 0
		// The directory is private; the peer check is the second lock.
		if uid, err := sock.PeerUID(c); err != nil || uid != os.Getuid() {
			c.Close()
			continue
		}
		sh.serve(c, rfbserver.Config{ViewOnly: viewOnly}, nil)
	}
}

// cursorShape is the live session's pointer shape, for viewers (nil when
// the protocol sends none, or between sessions).
func (k *desktopLimb) cursorShape() *rfbserver.Cursor {
	k.l.mu.Lock()
	src, _ := k.session.(limb.CursorSource)
	k.l.mu.Unlock()
	if src == nil {
		return nil
	}
	img, hot := src.CursorShape()
	if img == nil {
		return nil
	}
	return &rfbserver.Cursor{Image: img, Hotspot: hot}
}

// serve runs one viewer session in its own goroutine; cfg says how the
// viewer gets in (the buffer, name and input are the share's). ended, when
// set, is called once the session is over.
func (sh *rfbShare) serve(c net.Conn, cfg rfbserver.Config, ended func()) {
	sh.mu.Lock()
	if sh.viewers >= maxShareViewers {
		sh.mu.Unlock()
		c.Close()
		if ended != nil {
			ended()
		}
		return
	}
	sh.viewers++
	sh.mu.Unlock()
	// One goroutine per viewer: an RFB server session blocks on its
	// viewer; stop waits for them all (wg) after cancelling ctx.
	sh.wg.Add(1)
	go func() {
		defer sh.wg.Done()
		if ended != nil {
			defer ended()
		}
		in := sh.seat.session()
		cfg.Buffer, cfg.Name, cfg.Input = sh.l.dsk.buf, "dvv "+sh.l.id, in
		cfg.CursorShape = sh.l.dsk.cursorShape
		err := rfbserver.Serve(sh.ctx, c, cfg)
		sh.mu.Lock()
		sh.viewers--
		sh.mu.Unlock()
		in.finish("handed back: the person closed the VNC viewer")
		if err != nil && sh.ctx.Err() == nil {
			sh.l.core.log.Info("share: viewer session ended", "limb", sh.l.id, "err", err)
		}
	}()
}

// startTCP opens the loopback port on first use (port, when not 0, is the
// one asked for) and issues a one-time password for one viewer.
func (sh *rfbShare) startTCP(viewOnly bool, port int) (addr, password string, expires time.Time, err error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.tcp != nil && port != 0 && sh.tcp.Addr().(*net.TCPAddr).Port != port {
		return "", "", time.Time{}, wire.Errorf(wire.Busy, "limb %s is already shared on %s, not port %d; stop the share (dvv share %s --stop) to change its port, or leave the port out",
			sh.l.id, sh.tcp.Addr(), port, sh.l.id)
	}
	if sh.tcp == nil {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if errors.Is(err, syscall.EADDRINUSE) {
			return "", "", time.Time{}, wire.Errorf(wire.Busy, "port %d on 127.0.0.1 is taken by another program; choose another or leave the port out for a free one", port)
		}
		if err != nil {
			return "", "", time.Time{}, wire.Errorf(wire.Internal, "cannot open a loopback port: %v", err)
		}
		sh.tcp = ln
		context.AfterFunc(sh.ctx, func() { ln.Close() })
		sh.wg.Add(1)
		go sh.acceptTCP(ln)
	}
	now := time.Now()
	for p, o := range sh.passwords {
		if now.After(o.expires) {
			delete(sh.passwords, p)
		}
	}
	if len(sh.passwords) >= maxSharePassword {
		return "", "", time.Time{}, wire.Errorf(wire.Busy, "%d one-time passwords of limb %s are unused; use one or wait %v for them to expire", len(sh.passwords), sh.l.id, sharePasswordTTL)
	}
	password = newSharePassword()
	expires = now.Add(sharePasswordTTL)
	sh.passwords[password] = oneTime{viewOnly: viewOnly, expires: expires}
	return sh.tcp.Addr().String(), password, expires, nil
}

func (sh *rfbShare) acceptTCP(ln net.Listener) {
	defer sh.wg.Done()
	var pause time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if acceptRetry(err, &pause, sh.ctx.Done(), sh.l.core.log.Warn) {
				continue
			}
			return
		}
		pause = 0
		sh.serveTCP(c)
	}
}

// checkPassword accepts a live one-time password once; the password says
// whether the session may drive.
func (sh *rfbShare) checkPassword(ch, resp []byte) (ok, viewOnly bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for p, o := range sh.passwords {
		if time.Now().Before(o.expires) && rfbserver.CheckVNCAuth(p, ch, resp) {
			delete(sh.passwords, p) // one connection per password
			return true, o.viewOnly
		}
	}
	return false, false
}

// newSharePassword is 8 characters (VNC authentication uses at most 8)
// from an alphabet without look-alikes: 47 bits.
func newSharePassword() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRTUVWXY34679"
	b := make([]byte, 8)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// stop closes the share: listeners, sockets and every viewer session.
func (sh *rfbShare) stop() {
	sh.cancel()
	sh.wg.Wait()
	sh.l.release(sh.seat.person, "handed back: the share was stopped")
}

func (sh *rfbShare) view() *wire.Share {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return &wire.Share{Socket: sh.socket, ViewSocket: sh.viewSocket, Viewers: sh.viewers}
}

// seat is a person at a viewer (a shared VNC viewer, the browser) who
// may drive a limb: the first input of a session takes the limb over as
// person, and when the last session that drove ends, the limb is handed
// back.
type seat struct {
	l       *Limb
	person  *attachment
	reason  string // the takeover reason agents are shown
	mu      sync.Mutex
	drivers int
}

func newSeat(l *Limb, person *attachment, reason string) *seat {
	return &seat{l: l, reason: reason, person: person}
}

func newPerson(name string) *attachment {
	a := &attachment{name: name, limbs: map[string]bool{}}
	a.person.Store(true)
	return a
}

// session is one viewer session's input.
func (st *seat) session() *seatInput {
	return &seatInput{st: st, acts: newPersonActs(st.l, st.person.name)}
}

// takeover makes the seat's person hold the limb (the browser's button).
func (st *seat) takeover() { st.l.takeover(st.person, st.reason) }

// seatInput implements rfbserver.Input for one session.
type seatInput struct {
	st    *seat
	drove bool
	// acts records what the person does as acts while the limb records
	// (share_acts.go).
	acts *personActs
}

func (in *seatInput) desk() limb.Desktop {
	st := in.st
	if !in.drove {
		in.drove = true
		st.mu.Lock()
		st.drivers++
		st.mu.Unlock()
	}
	l := st.l
	l.mu.Lock()
	held := l.lease.holder == st.person
	l.mu.Unlock()
	if !held {
		st.takeover()
	}
	d, err := l.liveDesktop()
	if err != nil {
		return nil
	}
	return d
}

// finish is called when the session ends: the last driving session hands
// the limb back.
func (in *seatInput) finish(why string) {
	in.acts.end()
	if !in.drove {
		return
	}
	st := in.st
	st.mu.Lock()
	st.drivers--
	last := st.drivers == 0
	st.mu.Unlock()
	if last && st.l.release(st.person, why) {
		st.l.core.log.Info("viewer left, limb handed back", "limb", st.l.id, "seat", st.person.name)
	}
}

func (in *seatInput) Pointer(x, y int, b uint8) {
	if d := in.desk(); d != nil {
		d.Pointer(x, y, limb.Buttons(b))
		in.acts.pointer(x, y, b)
	}
}

func (in *seatInput) Key(keysym uint32, down bool) {
	if d := in.desk(); d != nil {
		d.Key(keysym, down)
		in.acts.key(keysym, down)
	}
}

func (in *seatInput) CutText(text string) {
	if d := in.desk(); d != nil {
		d.SetClipboard(text)
	}
}

// serveTCP serves one viewer of the TCP port: through the guard, with a
// shorter handshake than the private sockets allow.
func (sh *rfbShare) serveTCP(c net.Conn) {
	g := &sh.guard
	uid, ok := peeruid.Loopback(c)
	if !ok {
		uid = unknownPeer
	}
	if !g.admit(uid) {
		c.Close()
		return
	}
	var once sync.Once
	over := func() { once.Do(func() { g.handshakeOver(uid) }) }
	cfg := rfbserver.Config{Gate: func() error { return g.gate(uid) }, HandshakeTimeout: shareHandshakeTime,
		Auth: func(ch, resp []byte) (bool, bool) {
			defer over()
			return g.attempt(uid, func() (bool, bool) { return sh.checkPassword(ch, resp) })
		}}
	sh.serve(c, cfg, over)
}
