package daemon

import (
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/dvvhq/dvv/pkg/health"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/limb/pins"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpHealth, typed(opHealth))

// opHealth runs dvvd's half of `dvv doctor` from dvvd's own environment.
func opHealth(c *opCall, _ wire.HealthArgs) (*wire.HealthAnswer, error) {
	svc := c.d.cfg.Services
	env := health.Env{Keychain: svc.Keychain, SSHConfig: svc.SSHConfig, HostKey: svc.HostKey,
		Pinned: func(hp string) bool { _, ok, _ := pins.Lookup(hp); return ok }}
	if svc.Hosts != nil {
		for _, h := range svc.Hosts.List() {
			if h.Source == "" || h.Source == hosts.SourceSaved {
				env.Saved = append(env.Saved, h)
			}
		}
	}
	if b := svc.Discovery; b != nil {
		env.Discovery = func() string { _, note := b.List(); return note }
	}
	r := &wire.HealthAnswer{}
	r.Checks = health.Run(c.ctx, env)
	return r, nil
}

var _ = register(wire.OpReport, typed(opReport))

// opReport answers what only dvvd knows for `dvv report`.
func opReport(c *opCall, _ wire.ReportArgs) (*wire.ReportAnswer, error) {
	d := c.d
	cfg := map[string]string{
		"id":             d.cfg.ID,
		"socket":         d.SocketPath(),
		"fenceThreshold": strconv.FormatFloat(d.cfg.FenceThreshold, 'g', -1, 64),
		"sessionIdle":    d.cfg.SessionIdle.String(),
		"maxConns":       strconv.Itoa(d.cfg.MaxConns),
		"discovery":      strconv.FormatBool(d.cfg.Services.Discovery != nil),
		"keychain":       strconv.FormatBool(d.cfg.Services.Keychain != nil),
		"tokens":         strconv.FormatBool(d.cfg.Services.Tokens != nil),
		"sshConfig":      d.cfg.Services.SSHConfig,
		"terminal":       strconv.FormatBool(d.cfg.Terminal != nil),
		"files":          strconv.FormatBool(d.cfg.Files != nil),
	}
	for proto := range d.cfg.Desktop {
		cfg["desktop."+proto] = "true"
	}
	r := &wire.ReportAnswer{}
	r.Report = &wire.DaemonReport{Version: Version, Go: runtime.Version(), OS: osText(), PID: os.Getpid(),
		UptimeMs: time.Since(d.started).Milliseconds(), Config: cfg, Log: d.tail.Lines()}
	return r, nil
}
