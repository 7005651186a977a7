package daemon

import (
	"context"
	"time"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

func (k *terminalLimb) dial(ctx context.Context, t limb.Target) (limb.Session, error) {
	s, err := k.dialer(ctx, t)
	if err != nil {
		return nil, err
	}
	k.l.mu.Lock()
	k.session, k.exitCode = s, nil
	k.l.mu.Unlock()
	return s, nil
}

func (k *terminalLimb) redialing() {}

func (k *terminalLimb) detachLocked()    { k.session = nil }
func (k *terminalLimb) liveLocked() bool { return k.session != nil }

// ended records the exit status when the shell ended (as opposed to the
// connection dropping). An exited shell is not redialled until a reconnect
// asks for a new one: starting another would hide that the first ended.
func (k *terminalLimb) ended() bool {
	k.l.mu.Lock()
	defer k.l.mu.Unlock()
	if k.session == nil {
		return false
	}
	code, exited := k.session.Exited()
	if exited {
		k.exitCode = &code
	}
	return exited
}

func (k *terminalLimb) observe(o *wire.Observation, a *attachment) time.Time {
	k.l.mu.Lock()
	s := k.session
	k.l.mu.Unlock()
	if s == nil {
		return time.Time{}
	}
	cols, rows := s.Size()
	o.Size = wire.Size{W: cols, H: rows}
	// A terminal's cells are its coordinates and it has no pixels to
	// fence: one generation, always covered.
	o.Geometry = wire.Geometry{Generation: 1, Width: cols, Height: rows}
	o.Coverage = 1
	return s.LastOutput()
}

func (k *terminalLimb) signals() wire.Signals {
	k.l.mu.Lock()
	s := k.session
	k.l.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Signals()
}

func (k *terminalLimb) forgetLocked(*attachment) {}

// changeSource watches the output stream. A terminal has no sequence of
// its own, so one is counted from the changes seen: each new Changed
// channel is one more change.
func (k *terminalLimb) changeSource(string) (*changeSource, error) {
	l := k.l
	var n uint64
	var lastSeen <-chan struct{}
	return &changeSource{
		seq: func() uint64 {
			ch := l.termChanged()
			if ch != lastSeen {
				if lastSeen != nil {
					n++
				}
				lastSeen = ch
			}
			return n
		},
		last: func() time.Time {
			if term, err := l.liveTerminal(); err == nil {
				return term.LastOutput()
			}
			return time.Now()
		},
		changed: l.termChanged,
	}, nil
}

// A terminal's files go over its own SSH connection.
func (k *terminalLimb) filesVia() string { return "ssh" }

func (k *terminalLimb) openFiles(ctx context.Context) (limb.Files, error) {
	term, err := k.l.liveTerminal()
	if err != nil {
		return nil, err
	}
	return term.Files(ctx)
}

// lastExit is the exit status of the terminal's shell, once it ended.
func (l *Limb) lastExit() (int, bool) {
	if l.tty == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tty.exitCode != nil {
		return *l.tty.exitCode, true
	}
	if l.tty.session != nil {
		if code, exited := l.tty.session.Exited(); exited {
			return code, true
		}
	}
	return 0, false
}

// termChanged closes at the terminal's next output (or never, when there is
// no live session; the state channel wakes the wait then).
func (l *Limb) termChanged() <-chan struct{} {
	if term, err := l.liveTerminal(); err == nil {
		return term.Changed()
	}
	return nil
}
