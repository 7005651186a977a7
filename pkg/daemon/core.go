package daemon

import (
	"log/slog"
	"sync/atomic"
)

// core is the part of dvvd every limb reaches: its configuration, its log,
// the event hub, and whether a person paused agent input everywhere. The
// Daemon embeds it; a Limb holds it rather than the Daemon, so a limb
// knows nothing of connections, the registry of limbs or the viewer.
type core struct {
	cfg       Config
	log       *slog.Logger
	events    *eventHub
	pausedAll atomic.Bool // a person paused agent input on every limb (ops_pause.go)
}

// SocketPath is where this daemon listens.
func (d *core) SocketPath() string {
	if d.cfg.Listener != nil {
		return d.cfg.Listener.Addr().String()
	}
	if d.cfg.SocketPath != "" {
		return d.cfg.SocketPath
	}
	return socketPathFor(d.cfg.ID)
}
