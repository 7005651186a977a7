// Package ssh is the SSH limb adapter: terminal limbs (a PTY shell behind a
// VT emulator with a scrollback ring), run on fresh exec channels, and
// files over SFTP, including the SFTP sidecar that gives VNC and RDP limbs
// their disk. Every failure it returns is a *wire.Error.
package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pkg/sftp"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/limb/pins"
	"github.com/dvvhq/dvv/pkg/sshx"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Options are the knobs of the adapter; the zero value is what dvvd uses:
// the local user's ~/.ssh (found through os.UserHomeDir, so HOME decides)
// and the agent at SSH_AUTH_SOCK.
type Options struct {
	Home        string        // local home holding .ssh; "": os.UserHomeDir()
	ConfigFiles []string      // nil: ~/.ssh/config then /etc/ssh/ssh_config
	AgentSocket string        // "": SSH_AUTH_SOCK; "none": no agent
	KeepAlive   time.Duration // 0: 10 s
	Cols, Rows  int           // terminal size; 0: 120x40
	Scrollback  int           // ring bytes; 0: DefaultScrollback (4 MiB)
}

// DialTerminal opens a terminal limb with default options.
func DialTerminal(ctx context.Context, t limb.Target) (limb.Terminal, error) {
	return Options{}.DialTerminal(ctx, t)
}

// DialFiles opens the SFTP sidecar with default options.
func DialFiles(ctx context.Context, t limb.Target) (limb.Files, error) {
	return Options{}.DialFiles(ctx, t)
}

// Port is the port a connection to address dials when none is given: the
// ssh configuration's Port for that host or alias, else 22.
func Port(address string) int { return Options{}.Port(address) }

// Port is the package-level Port with these options' configuration.
func (o Options) Port(address string) int {
	ep, err := sshx.Resolve(o.sshOptions(address, 0, "", ""))
	if err != nil || ep.Port == 0 {
		return 22 // an unreadable configuration fails the dial itself, with its reason
	}
	return ep.Port
}

var (
	_ limb.TerminalDialer = DialTerminal
	_ limb.FilesDialer    = DialFiles
)

func (o Options) sshOptions(address string, port int, user, password string) sshx.Options {
	return sshx.Options{Address: address, Port: port, User: user, Password: password, Home: o.Home,
		ConfigFiles: o.ConfigFiles, AgentSocket: o.AgentSocket, KeepAlive: o.KeepAlive}
}

// DialTerminal connects, then opens a login shell on a PTY. Every call is
// a fresh connection and session; the daemon decides which slot it is.
func (o Options) DialTerminal(ctx context.Context, t limb.Target) (limb.Terminal, error) {
	if t.Protocol != "" && t.Protocol != wire.ProtoSSH {
		return nil, wire.Errorf(wire.WrongProtocol, "a terminal limb needs protocol ssh, not %q", t.Protocol)
	}
	c, err := sshx.Dial(ctx, o.sshOptions(t.Address, t.Port, t.User, t.Password))
	if err != nil {
		return nil, dialError(err, t.Address, t.Port)
	}
	cn := &conn{client: c}
	term, err := newTerminal(ctx, cn, o)
	if err != nil {
		c.Close()
		return nil, cn.opError(err, "opening a shell")
	}
	term.facts = cn.hello(ctx, "ssh")
	return term, nil
}

// DialFiles opens SFTP over a second SSH connection to a desktop limb's
// machine: t.SSHPort and t.SSHUser when set, else ~/.ssh/config's, else
// 22 and the local user. The desktop's password is not offered to SSH.
// Failures are FILES_UNAVAILABLE with the reason.
func (o Options) DialFiles(ctx context.Context, t limb.Target) (limb.Files, error) {
	c, err := sshx.Dial(ctx, o.sshOptions(t.Address, t.SSHPort, t.SSHUser, ""))
	if err != nil {
		return nil, filesUnavailable(err, t.Address, t.SSHPort)
	}
	cn := &conn{client: c, ownsClient: true}
	f, err := cn.files(ctx)
	if err != nil {
		c.Close()
		return nil, wire.Errorf(wire.FilesUnavailable, "the SSH server at %s offers no SFTP: %v", t.Address, err)
	}
	f.(*files).facts = cn.hello(ctx, "sidecar")
	return f, nil
}

// TrustHostKeyChecked is what `dvv hosts trust` runs: it records the host
// key at address[:port] only when it is the fingerprint the user checked,
// or, with none given, when acceptNew says a new key may be written.
// Otherwise nothing is written: a different key is HOSTKEY_CHANGED, an
// unchecked one HOSTKEY_UNKNOWN with its fingerprint. already reports a key
// known_hosts held before.
func TrustHostKeyChecked(address string, port int, checked string, acceptNew bool) (fingerprint string, already bool, err error) {
	return Options{}.TrustHostKeyChecked(address, port, checked, acceptNew)
}

// TrustHostKeyChecked is the package function with these options.
func (o Options) TrustHostKeyChecked(address string, port int, checked string, acceptNew bool) (string, bool, error) {
	if h, p, err := net.SplitHostPort(address); err == nil && port == 0 {
		if n, err := strconv.Atoi(p); err == nil {
			address, port = h, n
		}
	}
	hp := address
	if port != 0 && port != 22 {
		hp = net.JoinHostPort(address, strconv.Itoa(port))
	}
	what := "the SSH host key of " + hp
	accept := func(fp string, already bool) error {
		if already {
			if checked != "" && !pins.Matches(checked, fp) {
				return pins.Mismatch(what, hp, wire.ProtoSSH, checked, fp)
			}
			return nil
		}
		return pins.Decide(what, hp, wire.ProtoSSH, fp, checked, acceptNew)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	r, err := sshx.TrustIf(ctx, o.sshOptions(address, port, "", ""), accept)
	if err != nil {
		return "", false, dialError(err, address, port)
	}
	return r.Fingerprint, r.Already, nil
}

// CheckHostKey compares the host key address[:port] presents with
// known_hosts without writing (`dvv doctor`): nil when it is trusted,
// HOSTKEY_UNKNOWN (with the fingerprint and the exact trust command) or
// HOSTKEY_CHANGED otherwise.
func CheckHostKey(ctx context.Context, address string, port int, user string) (string, error) {
	fp, err := sshx.CheckTrust(ctx, Options{}.sshOptions(address, port, user, ""))
	if err != nil {
		return fp, dialError(err, address, port)
	}
	return fp, nil
}

// conn is one SSH connection shared by a terminal's shell, its runs and
// its SFTP session.
type conn struct {
	client     *sshx.Client
	ownsClient bool // a sidecar: closing its Files closes the connection

	mu   sync.Mutex
	sftp *sftp.Client
}

func (c *conn) err() error {
	err := c.client.Err()
	var pe *sshx.ProtocolError
	if errors.As(err, &pe) {
		return wire.Errorf(wire.ProtocolError, "the SSH connection to %s ended: %v", c.client.Endpoint.Addr(), err)
	}
	if err != nil {
		return wire.Errorf(wire.NotConnected, "the SSH connection to %s ended: %v", c.client.Endpoint.Addr(), err)
	}
	return nil
}

func (c *conn) close() error {
	c.mu.Lock()
	if c.sftp != nil {
		c.sftp.Close()
	}
	c.mu.Unlock()
	return c.client.Close()
}

// opError prefers NOT_CONNECTED when the connection itself is gone.
func (c *conn) opError(err error, what string) error {
	if err == nil {
		return nil
	}
	if cerr := c.client.Err(); cerr != nil {
		return wire.Errorf(wire.NotConnected, "%s: the SSH connection to %s ended (%v)", what, c.client.Endpoint.Addr(), cerr)
	}
	return opError(err, what)
}

// run executes one command on a fresh exec channel of the warm connection.
func (c *conn) run(ctx context.Context, r limb.RunSpec) (*wire.RunResult, error) {
	if _, ok := ctx.Deadline(); !ok {
		return nil, badRequest("run needs timeoutMs: a deadline bounds every command")
	}
	if r.Command == "" {
		return nil, badRequest("run needs a command")
	}
	if _, err := sshx.SplitEnv(r.Env); err != nil {
		return nil, badRequest("%v", err)
	}
	res, err := c.client.Run(ctx, r.Command, sshx.RunOptions{Cwd: r.Cwd, MaxOutput: r.MaxOutput, Stdin: r.Stdin, Env: r.Env, Sudo: r.Sudo})
	if err != nil {
		return nil, c.opError(err, "run")
	}
	shown := r.Cwd
	if shown == "" {
		shown = "~"
	}
	out := runResult(res, shown)
	out.Sudo, out.Via = r.Sudo, "ssh"
	return out, nil
}

// hello asks the machine for its facts once, on a fresh channel: os,
// arch, hostname, kernel (uname) and the user commands run as (id -un).
// A machine that does not answer in time, or whose shell is not POSIX,
// leaves the facts empty with a note; the connection is still used.
func (c *conn) hello(ctx context.Context, via string) *wire.GuestFacts {
	f := &wire.GuestFacts{Via: via}
	ctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	const marker = "dvv-hello"
	res, err := c.client.Run(ctx, "echo "+marker+"; uname -s; uname -m; uname -n; uname -r; id -un", sshx.RunOptions{MaxOutput: 4096})
	// OpenSSH frees a session's slot (MaxSessions) in the loop iteration
	// after the one that read its channel's close: a channel opened right
	// behind the close could find the slot still taken. A request the
	// server answers makes the next channel arrive after that iteration.
	answered := make(chan struct{})
	go func() { c.client.SSH.SendRequest("keepalive@openssh.com", true, nil); close(answered) }()
	select {
	case <-answered:
	case <-ctx.Done(): // a silent server is keepalive's to notice
	}
	if err != nil {
		f.Note = fmt.Sprintf("the machine's facts could not be asked: %v", err)
		return f
	}
	if res.TimedOut {
		f.Note = fmt.Sprintf("the machine did not tell its facts within %v", helloTimeout)
		return f
	}
	// Start-up files may print before the marker; the facts follow it.
	out := string(res.Stdout)
	if i := strings.LastIndex(out, marker+"\n"); i >= 0 {
		out = out[i:]
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 6 || lines[0] != marker {
		f.Note = "the machine's shell did not answer uname and id as a POSIX shell does"
		return f
	}
	f.OS, f.Arch, f.Hostname, f.Kernel, f.User = strings.ToLower(lines[1]), lines[2], lines[3], lines[4], lines[5]
	return f
}

// helloTimeout bounds the facts' question at connect.
const helloTimeout = 5 * time.Second

// files returns the connection's SFTP session, opening it on first use.
func (c *conn) files(ctx context.Context) (limb.Files, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sftp == nil {
		type opened struct {
			s   *sftp.Client
			err error
		}
		ch := make(chan opened, 1)
		go func() { s, err := c.client.SFTP(); ch <- opened{s, err} }()
		select {
		case o := <-ch:
			if o.err != nil {
				return nil, c.opError(fmt.Errorf("starting the sftp subsystem: %w", o.err), "files")
			}
			c.sftp = o.s
		case <-ctx.Done():
			return nil, wire.Errorf(wire.Timeout, "the SFTP subsystem did not start before the deadline")
		}
	}
	return &files{conn: c, sc: c.sftp}, nil
}
