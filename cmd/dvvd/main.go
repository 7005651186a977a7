// Command dvvd is dvv's per-user daemon: it holds every limb (a live VNC,
// RDP or SSH connection), leases, groups, saved hosts and policy, and serves
// them on a Unix socket, one JSON object per line.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/discovery"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Protocol support registers itself here (see proto_*.go).
var (
	desktopDialers = map[string]limb.DesktopDialer{}
	terminalDialer limb.TerminalDialer
	terminalPort   func(address string) int
	filesDialer    limb.FilesDialer
	machineSSH     machine.SSHDialer // qmp+ssh and qemu+ssh machines
	structure      limb.StructureDialer
	trusters       = map[string]func(address string, port int, checked string, acceptNew bool) (fingerprint string, already bool, err error){}
	hostKeyCheck   func(ctx context.Context, address string, port int, user string) (string, error)
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are dvvd's command-line flags.
type options struct {
	id, socket, level string
	threshold         float64
	noDiscovery       bool
	maxFramebuffer    string
	maxConns          int
	lineIdle          time.Duration
	viewerAddr        string
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == exportArg {
		return exportRecording(args[1:], stderr)
	}
	if len(args) > 0 && args[0] == exportScriptArg {
		return exportScript(args[1:], stderr)
	}
	if len(args) > 0 && args[0] == diffPicturesArg {
		return diffPictures(args[1:], stderr)
	}
	var o options
	var manDir string
	code := 0
	root := &cobra.Command{
		Use:   "dvvd",
		Short: "dvv's per-user daemon: holds every limb and serves the control socket",
		Long: "dvvd holds every limb (a live VNC, RDP or SSH connection), leases, groups, saved hosts and policy,\n" +
			"and serves them on a Unix socket, one JSON object per line. Run one per user (see `dvv service install`).",
		Version:       daemon.Version,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if manDir != "" {
				return writeMan(cmd, manDir)
			}
			code = serve(o, stderr)
			return nil
		},
	}
	root.SetVersionTemplate("dvvd {{.Version}}\n")
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	f := root.Flags()
	f.StringVar(&o.id, "id", "default", "instance name; the socket is $XDG_RUNTIME_DIR/dvv/<id>.sock, else /tmp/dvv<uid>/<id>.sock")
	f.StringVar(&o.socket, "socket", "", "socket path (overrides the path --id names)")
	f.StringVar(&o.level, "log-level", "info", "log level: debug, info, warn or error")
	f.Float64Var(&o.threshold, "fence-threshold", daemon.DefaultFenceThreshold, "share of the screen repainted since the last read that refuses type/key")
	f.BoolVar(&o.noDiscovery, "no-discovery", false, "do not browse mDNS (Avahi) for machines")
	f.StringVar(&o.maxFramebuffer, "max-framebuffer", "8192x4096", "largest desktop a VNC or RDP server may announce, as WxH: its area is the limit (each side at most 16384); a larger one fails the limb with PROTOCOL_ERROR")
	f.IntVar(&o.maxConns, "max-conns", 1024, "most client connections at once; when all are taken, the one that has sent no complete request the longest is closed for a new one, else the new one is answered BUSY")
	f.DurationVar(&o.lineIdle, "line-idle-timeout", 30*time.Second, "how long a request line may stay unfinished before its connection is closed")
	f.StringVar(&o.viewerAddr, "viewer-addr", "127.0.0.1:0", "where the browser viewer listens, started at the first `dvv viewer`: 127.0.0.1:PORT (or PORT); port 0 picks a free one. Loopback only: see docs/security.md")
	f.BoolP("version", "v", false, "print the version and exit")
	f.StringVar(&manDir, "gen-man", "", "write the man page into this directory and exit (packaging)")
	f.MarkHidden("gen-man")
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "dvvd: %v (see `dvvd --help`)\n", err)
		return 2
	}
	return code
}

// serve runs the daemon until SIGTERM/SIGINT and returns the exit status.
func serve(o options, stderr io.Writer) int {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(o.level)); err != nil {
		fmt.Fprintln(stderr, "dvvd: bad --log-level:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lv}))
	var fw, fh int
	if _, err := fmt.Sscanf(o.maxFramebuffer, "%dx%d", &fw, &fh); err != nil || fw < 1 || fh < 1 || fw > fb.MaxDim || fh > fb.MaxDim {
		fmt.Fprintf(stderr, "dvvd: bad --max-framebuffer %q: give WxH, each side 1 to %d (e.g. 8192x4096)\n", o.maxFramebuffer, fb.MaxDim)
		return 2
	}
	viewerPort, err := parseViewerAddr(o.viewerAddr)
	if err != nil {
		fmt.Fprintf(stderr, "dvvd: bad --viewer-addr %q: %v\n", o.viewerAddr, err)
		return 2
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	svc, err := services(ctx, !o.noDiscovery)
	if err != nil {
		log.Error("cannot start", "error", err)
		return 1
	}
	ln, err := activatedListener()
	if err != nil {
		log.Error("socket activation", "error", err)
		return 1
	}
	d := daemon.New(daemon.Config{ID: o.id, SocketPath: o.socket, Listener: ln, Logger: log, Desktop: desktopDialers,
		Terminal: terminalDialer, TerminalPort: terminalPort, Files: filesDialer, MachineSSH: machineSSH, Structure: structure, Services: svc, FenceThreshold: o.threshold,
		MaxFramebufferPixels: fw * fh, MaxConns: o.maxConns, LineIdle: o.lineIdle, ViewerPort: viewerPort})
	if err := d.Listen(); err != nil {
		log.Error("cannot listen", "error", err)
		return 1
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
		return 1
	}
	<-d.Stopped()
	return 0
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
	// A saved host's password comes from the credentials file or systemd's
	// credentials first (headless machines), then from the keychain.
	names := func(id string) []string {
		if h, ok := hs.Get(id); ok {
			return []string{h.Name, h.ID}
		}
		return []string{id}
	}
	kc := keychain.WithFiles(keychain.OpenLazy(), "", names)
	svc := daemon.Services{Hosts: hs, Tokens: ts, Keychain: kc, SSHConfig: hosts.DefaultSSHConfigPath(),
		Trust: trust, HostKey: hostKeyCheck}
	if discover {
		svc.Discovery = discovery.Start(ctx)
	}
	return svc, nil
}

func trust(protocol, address string, port int, checked string, acceptNew bool) (string, bool, error) {
	fn := trusters[protocol]
	if fn == nil {
		return "", false, wire.Errorf(wire.Unsupported, "this dvvd cannot trust %s endpoints", protocol)
	}
	return fn(address, port, checked, acceptNew)
}

// parseViewerAddr reads --viewer-addr: a port on 127.0.0.1, written PORT,
// :PORT, 127.0.0.1:PORT or localhost:PORT. Any other host is refused: a
// viewer on a network address would be reachable from other machines.
func parseViewerAddr(addr string) (int, error) {
	host, port := "127.0.0.1", addr
	if strings.Contains(addr, ":") {
		var err error
		if host, port, err = net.SplitHostPort(addr); err != nil {
			return 0, fmt.Errorf("give 127.0.0.1:PORT or PORT")
		}
	}
	switch host {
	case "", "127.0.0.1", "localhost":
	default:
		return 0, fmt.Errorf("the viewer listens on 127.0.0.1 only; give 127.0.0.1:PORT (to reach it from elsewhere, forward the port over SSH)")
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return 0, fmt.Errorf("the port must be a number from 0 to 65535 (0 picks a free one)")
	}
	return p, nil
}
