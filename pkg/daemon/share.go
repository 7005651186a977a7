package daemon

import (
	"context"
	"crypto/rand"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/rfbserver"
	"github.com/dvvhq/dvv/pkg/wire"
)

// A share serves one desktop limb's mirror to VNC viewers (pkg/rfbserver)
// with no second connection to the machine: on two Unix sockets of this
// user (interactive and view-only) and, on request, on a loopback TCP port
// where each viewer needs a one-time password. A viewer's input makes a
// person take the limb over; the last driving viewer leaving hands it back.
type share struct {
	l      *Limb
	person *attachment // the person at the viewer; holds the lease while driving

	socket, viewSocket string

	mu        sync.Mutex
	tcp       net.Listener
	passwords map[string]oneTime
	viewers   int
	drivers   int // viewer sessions that have sent input
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

// shareFor returns the limb's share, starting its Unix sockets the first
// time.
func (l *Limb) shareFor() (*share, error) {
	if l.kind != kindDesktop {
		return nil, wire.Errorf(wire.WrongProtocol, "limb %s is a terminal; only desktops are shared over RFB (watch terminals with dvv viewer)", l.id)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.share != nil {
		return l.share, nil
	}
	dir := filepath.Dir(l.d.SocketPath())
	base := filepath.Join(dir, l.d.cfg.ID+"-share-"+l.id)
	ctx, cancel := context.WithCancel(l.ctx)
	sh := &share{l: l, socket: base + ".sock", viewSocket: base + "-view.sock", passwords: map[string]oneTime{},
		person: &attachment{name: "person at a VNC viewer", person: true, limbs: map[string]bool{}}, ctx: ctx, cancel: cancel}
	for _, s := range []struct {
		path     string
		viewOnly bool
	}{{sh.socket, false}, {sh.viewSocket, true}} {
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
	l.share = sh
	return sh, nil
}

func (sh *share) acceptUnix(ln *net.UnixListener, viewOnly bool) {
	defer sh.wg.Done()
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			return
		}
		// The directory is private; the peer check is the second lock.
		if uid, err := client.PeerUID(c); err != nil || uid != os.Getuid() {
			c.Close()
			continue
		}
		sh.serve(c, viewOnly, nil)
	}
}

// serve runs one viewer session in its own goroutine.
func (sh *share) serve(c net.Conn, viewOnly bool, auth func(ch, resp []byte) (ok, viewOnly bool)) {
	sh.mu.Lock()
	if sh.viewers >= maxShareViewers {
		sh.mu.Unlock()
		c.Close()
		return
	}
	sh.viewers++
	sh.mu.Unlock()
	sh.wg.Add(1)
	go func() {
		defer sh.wg.Done()
		in := &shareInput{sh: sh}
		cfg := rfbserver.Config{Buffer: sh.l.buf, Name: "dvv " + sh.l.id, ViewOnly: viewOnly, Input: in, Auth: auth}
		err := rfbserver.Serve(sh.ctx, c, cfg)
		sh.mu.Lock()
		sh.viewers--
		last := false
		if in.drove {
			sh.drivers--
			last = sh.drivers == 0
		}
		sh.mu.Unlock()
		if last && sh.l.release(sh.person, "handed back: the person closed the VNC viewer") {
			sh.l.d.log.Info("share: viewer left, limb handed back", "limb", sh.l.id)
		}
		if err != nil && sh.ctx.Err() == nil {
			sh.l.d.log.Info("share: viewer session ended", "limb", sh.l.id, "err", err)
		}
	}()
}

// startTCP opens the loopback port on first use and issues a one-time
// password for one viewer.
func (sh *share) startTCP(viewOnly bool) (addr, password string, expires time.Time, err error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.tcp == nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
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

func (sh *share) acceptTCP(ln net.Listener) {
	defer sh.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		sh.serve(c, false, sh.checkPassword)
	}
}

// checkPassword accepts a live one-time password once; the password says
// whether the session may drive.
func (sh *share) checkPassword(ch, resp []byte) (ok, viewOnly bool) {
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
func (sh *share) stop() {
	sh.cancel()
	sh.wg.Wait()
	sh.l.release(sh.person, "handed back: the share was stopped")
}

func (sh *share) view() *wire.Share {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return &wire.Share{Socket: sh.socket, ViewSocket: sh.viewSocket, Viewers: sh.viewers}
}

// shareInput takes the limb over on the first event of a session and then
// drives the desktop as a person.
type shareInput struct {
	sh    *share
	drove bool
}

func (in *shareInput) desk() limb.Desktop {
	sh := in.sh
	if !in.drove {
		in.drove = true
		sh.mu.Lock()
		sh.drivers++
		sh.mu.Unlock()
	}
	l := sh.l
	l.mu.Lock()
	held := l.lease.holder == sh.person
	l.mu.Unlock()
	if !held {
		l.takeover(sh.person, "a person is driving from a VNC viewer")
	}
	d, err := l.desktop()
	if err != nil {
		return nil
	}
	return d
}

func (in *shareInput) Pointer(x, y int, b uint8) {
	if d := in.desk(); d != nil {
		d.Pointer(x, y, limb.Buttons(b))
	}
}

func (in *shareInput) Key(keysym uint32, down bool) {
	if d := in.desk(); d != nil {
		d.Key(keysym, down)
	}
}

func (in *shareInput) CutText(text string) {
	if d := in.desk(); d != nil {
		d.SetClipboard(text)
	}
}
