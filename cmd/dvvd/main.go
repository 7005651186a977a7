// Command dvvd is dvv's per-user daemon: it holds every limb (a live VNC,
// RDP or SSH connection), leases, groups, saved hosts and policy, and serves
// them on a Unix socket, one JSON object per line.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/discovery"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/limb/pins"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Protocol support registers itself here (see proto_*.go).
var (
	desktopDialers = map[string]limb.DesktopDialer{}
	terminalDialer limb.TerminalDialer
	filesDialer    limb.FilesDialer
	trusters       = map[string]func(address string, port int, fingerprint string) (string, error){}
)

func main() {
	id := flag.String("id", "default", "instance name; the socket is $XDG_RUNTIME_DIR/dvv/<id>.sock, else /tmp/dvv<uid>/<id>.sock")
	socket := flag.String("socket", "", "socket path (overrides --id's default path)")
	level := flag.String("log-level", "info", "log level: debug, info, warn, error")
	threshold := flag.Float64("fence-threshold", daemon.DefaultFenceThreshold, "share of the screen repainted since the last read that refuses type/key")
	noDiscovery := flag.Bool("no-discovery", false, "do not browse mDNS (Avahi) for machines")
	version := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *version {
		fmt.Println("dvvd", daemon.Version)
		return
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintln(os.Stderr, "dvvd: bad --log-level:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	svc, err := services(ctx, !*noDiscovery)
	if err != nil {
		log.Error("cannot start", "error", err)
		os.Exit(1)
	}
	d := daemon.New(daemon.Config{ID: *id, SocketPath: *socket, Logger: log, Desktop: desktopDialers,
		Terminal: terminalDialer, Files: filesDialer, Services: svc, FenceThreshold: *threshold})
	if err := d.Listen(); err != nil {
		log.Error("cannot listen", "error", err)
		os.Exit(1)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		s := <-sigs
		log.Info("stopping", "signal", s.String())
		d.Shutdown()
	}()
	if err := d.Serve(); err != nil {
		log.Error("serve", "error", err)
		d.Shutdown()
		os.Exit(1)
	}
	<-d.Done()
}

func services(ctx context.Context, discover bool) (daemon.Services, error) {
	hs, err := hosts.Open(hosts.DefaultPath())
	if err != nil {
		return daemon.Services{}, fmt.Errorf("saved hosts: %w", err)
	}
	ts, err := policy.OpenTokenStore(policy.DefaultTokenPath())
	if err != nil {
		return daemon.Services{}, fmt.Errorf("tokens: %w", err)
	}
	svc := daemon.Services{Hosts: hs, Tokens: ts, Keychain: keychain.OpenLazy(), SSHConfig: hosts.DefaultSSHConfigPath(),
		Trust: trust}
	if discover {
		svc.Discovery = discovery.Start(ctx)
	}
	return svc, nil
}

func trust(protocol, address string, port int, fingerprint string) (string, error) {
	fn := trusters[protocol]
	if fn == nil {
		return "", wire.Errorf(wire.Unsupported, "this dvvd cannot trust %s endpoints", protocol)
	}
	return fn(address, port, fingerprint)
}

// pinCert trusts a TLS certificate fingerprint the user read from a
// HOSTKEY_UNKNOWN answer.
func pinCert(address string, port int, fingerprint string) (string, error) {
	if fingerprint == "" {
		return "", wire.Errorf(wire.BadRequest, "pass the fingerprint the HOSTKEY_UNKNOWN answer showed (dvv hosts trust %s:%d --fingerprint …)", address, port)
	}
	hp := net.JoinHostPort(address, strconv.Itoa(port))
	var changed *pins.ChangedError
	if err := pins.Trust(hp, fingerprint); errors.As(err, &changed) {
		path, _ := pins.Path()
		return "", wire.Errorf(wire.HostKeyChanged, "%s is already trusted with a different certificate (%s); a changed certificate is never replaced by trust: verify the machine, then remove its line from %s", hp, changed.Pinned, path)
	} else if err != nil {
		return "", wire.Errorf(wire.BadRequest, "%v", err)
	}
	return fingerprint, nil
}
