package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/dvvhq/dvv/pkg/daemon/fence"
	"github.com/dvvhq/dvv/pkg/daemon/verify"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/imaging"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// desktopLimb is what a desktop limb (VNC, RDP) adds to the common part:
// the mirror of the remote framebuffer, which outlives each session so ids,
// generations and fences survive a reconnect, and every attachment's fence
// on it.
type desktopLimb struct {
	l      *Limb
	dialer limb.DesktopDialer

	buf    *fb.Buffer          // the mirror, kept across reconnects
	motion *verify.Motion      // where it changes with no act behind it
	enc    imaging.EncodeCache // recent encodes of the mirror
	txt    textReaders         // recognised text of the mirror, per language

	// Guarded by Limb.mu.
	session limb.Desktop // the live session, nil between sessions
	fences  map[*attachment]*fence.Typing

	structure structureCache // windows over the SSH sidecar (structure.go)
}

func newDesktopLimb(l *Limb, dial limb.DesktopDialer, maxPixels int) *desktopLimb {
	buf := fb.New()
	buf.SetMaxPixels(maxPixels)
	return &desktopLimb{l: l, dialer: dial, buf: buf, motion: verify.StartMotion(l.ctx, buf), fences: map[*attachment]*fence.Typing{}}
}

func (k *desktopLimb) dial(ctx context.Context, t limb.Target) (limb.Session, error) {
	s, err := k.dialer(ctx, t, k.buf)
	if err != nil {
		return nil, err
	}
	k.l.mu.Lock()
	k.session = s
	k.l.mu.Unlock()
	return s, nil
}

// redialing clears the mirror before a reconnect: the old pixels may be
// stale, so coverage counts from the new connection (same size, same
// generation) and every reader's fence arms.
func (k *desktopLimb) redialing() {
	if w, h := k.buf.Size(); w > 0 {
		k.buf.Resize(w, h)
	}
}

func (k *desktopLimb) detachLocked()    { k.session = nil }
func (k *desktopLimb) liveLocked() bool { return k.session != nil }

// ended: a desktop session only ends with its connection.
func (k *desktopLimb) ended() bool { return false }

func (k *desktopLimb) observe(o *wire.Observation, a *attachment) time.Time {
	w, h := k.buf.Size()
	o.Size = wire.Size{W: w, H: h}
	o.Geometry = wire.Geometry{Generation: k.buf.Resizes(), Width: w, Height: h}
	o.Coverage = round3(k.buf.Coverage())
	o.Fence = k.l.fenceView(a)
	k.l.mu.Lock()
	s := k.session
	k.l.mu.Unlock()
	if s != nil {
		o.DesktopName = s.DesktopName()
	}
	return k.buf.LastChange()
}

func (k *desktopLimb) signals() wire.Signals {
	k.l.mu.Lock()
	s := k.session
	k.l.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Signals()
}

// changeSource watches the mirror. Without perceive nothing keeps it
// current enough to call the screen still or changed.
func (k *desktopLimb) changeSource(until string) (*changeSource, error) {
	l := k.l
	l.mu.Lock()
	perceive := l.perceive
	l.mu.Unlock()
	if !perceive {
		return nil, &wire.Error{Code: wire.NotReady, Message: fmt.Sprintf("until %s watches the framebuffer, and limb %s was opened without perceive", until, l.id),
			Next: "call open again for this machine with perceive: true"}
	}
	return &changeSource{seq: k.buf.Seq, last: k.buf.LastChange, changed: k.buf.Changed}, nil
}

// A desktop's files go over a separate SSH connection to the same machine
// (the host's sidecar settings), since VNC and RDP carry no files.
func (k *desktopLimb) filesVia() string { return "sidecar" }

func (k *desktopLimb) openFiles(ctx context.Context) (limb.Files, error) {
	l := k.l
	if l.core.cfg.Files == nil {
		return nil, wire.Errorf(wire.FilesUnavailable, "this dvvd was built without the SFTP sidecar")
	}
	l.mu.Lock()
	t := l.target
	l.mu.Unlock()
	return l.core.cfg.Files(ctx, t)
}

// forgetLocked closes a's fence (every fence when a is nil): its tracker
// would otherwise keep counting damage for nobody.
func (k *desktopLimb) forgetLocked(a *attachment) {
	for b, f := range k.fences {
		if a == nil || a == b {
			f.Close()
			delete(k.fences, b)
		}
	}
}

// desktop returns the live desktop session or a coded reason there is none.
func (l *Limb) desktop() (limb.Desktop, error) {
	if l.dsk == nil {
		return nil, wire.Errorf(wire.WrongProtocol, "limb %s is a terminal; use run, term_send or term_read", l.id)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dsk.session == nil {
		return nil, l.notConnectedLocked()
	}
	return l.dsk.session, nil
}

// generation is the geometry generation: 1 for the first size, +1 for each
// change. Before any size is known, and on terminals, it is 0.
func (l *Limb) generation() uint64 {
	if l.dsk == nil {
		return 0
	}
	return l.dsk.buf.Resizes()
}
