package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/dvvhq/dvv/pkg/daemon/fence"
	"github.com/dvvhq/dvv/pkg/daemon/verify"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

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
