// Package sshx is an SSH client that connects the way OpenSSH's ssh(1)
// does: ~/.ssh/config (HostName, User, Port, IdentityFile), the agent at
// SSH_AUTH_SOCK, the default identity files, a password through password
// and keyboard-interactive authentication, and host keys checked against
// ~/.ssh/known_hosts. On one warm connection it runs commands, opens PTY
// shells and SFTP sessions.
package sshx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/sshx/sshconfig"
)

// Options says where and how to connect. Zero values take OpenSSH's
// defaults, read from the local user's ~/.ssh.
type Options struct {
	Address  string // host name, IP address, or a Host alias from ~/.ssh/config
	Port     int    // 0: the config's Port, else 22
	User     string // "": the config's User, else the local user name
	Password string // tried by password and keyboard-interactive auth after keys

	Home            string   // local home; "": os.UserHomeDir()
	ConfigFiles     []string // nil: ~/.ssh/config then /etc/ssh/ssh_config
	KnownHostsFiles []string // nil: UserKnownHostsFile, else ~/.ssh/known_hosts(2), plus /etc/ssh/ssh_known_hosts
	AgentSocket     string   // "": IdentityAgent, else $SSH_AUTH_SOCK; "none" disables the agent
	IdentityFiles   []string // tried before the config's and the defaults

	ConnectTimeout time.Duration // default 10 s; an earlier ctx deadline wins
	KeepAlive      time.Duration // default 10 s; 0 < KeepAlive: interval of keepalive@openssh.com probes
}

// Endpoint is Options resolved against the configuration.
type Endpoint struct {
	Alias          string
	HostName       string
	Port           int
	User           string
	IdentityFiles  []string // expanded paths, in trial order
	IdentitiesOnly bool
	KnownHosts     []string // files checked, the first is where trust is recorded
	HashKnownHosts bool
	AgentSocket    string
	ConnectTimeout time.Duration
}

// Addr is host:port for dialling.
func (e *Endpoint) Addr() string { return net.JoinHostPort(e.HostName, strconv.Itoa(e.Port)) }

// DefaultIdentityFiles are OpenSSH's, relative to ~/.ssh, in its order.
var DefaultIdentityFiles = []string{"id_rsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk", "id_xmss", "id_dsa"}

func localUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "root"
}

// Resolve applies ~/.ssh/config (and the system config) to o.
func Resolve(o Options) (*Endpoint, error) {
	home := o.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("no local home directory to find ~/.ssh in: %w", err)
		}
		home = h
	}
	sshDir := filepath.Join(home, ".ssh")
	files := o.ConfigFiles
	if files == nil {
		files = []string{filepath.Join(sshDir, "config"), "/etc/ssh/ssh_config"}
	}
	if o.Address == "" {
		return nil, errors.New("no address given")
	}
	// OpenSSH reads the user file first, then the system one, and the
	// first value found wins: merging their lookups in order does the same.
	cfgs, err := sshconfig.LoadAll(files, sshDir)
	if err != nil {
		return nil, err
	}
	hs := cfgs.Lookup(o.Address)
	e := &Endpoint{Alias: o.Address, HostName: o.Address, Port: 22, User: localUser(),
		HashKnownHosts: hs.HashKnownHosts, IdentitiesOnly: hs.IdentitiesOnly, ConnectTimeout: 10 * time.Second}
	if hs.HostName != "" {
		e.HostName = sshconfig.ExpandTokens(hs.HostName, sshconfig.Tokens{Host: o.Address, Alias: o.Address})
	}
	if hs.Port != 0 {
		e.Port = hs.Port
	}
	if o.Port != 0 {
		e.Port = o.Port
	}
	if hs.User != "" {
		e.User = hs.User
	}
	if o.User != "" {
		e.User = o.User
	}
	if hs.ConnectTimeoutSecs > 0 {
		e.ConnectTimeout = time.Duration(hs.ConnectTimeoutSecs) * time.Second
	}
	if o.ConnectTimeout > 0 {
		e.ConnectTimeout = o.ConnectTimeout
	}
	tok := sshconfig.Tokens{Host: e.HostName, Alias: o.Address, Port: e.Port, RemoteUser: e.User, LocalUser: localUser(), LocalHome: home}
	for _, f := range o.IdentityFiles {
		e.IdentityFiles = append(e.IdentityFiles, sshconfig.ExpandPath(f, tok))
	}
	for _, f := range hs.IdentityFiles {
		e.IdentityFiles = append(e.IdentityFiles, sshconfig.ExpandPath(f, tok))
	}
	// OpenSSH adds the defaults only when no IdentityFile is configured.
	if len(hs.IdentityFiles) == 0 {
		for _, f := range DefaultIdentityFiles {
			e.IdentityFiles = append(e.IdentityFiles, filepath.Join(sshDir, f))
		}
	}
	switch {
	case o.KnownHostsFiles != nil:
		e.KnownHosts = o.KnownHostsFiles
	case len(hs.UserKnownHosts) > 0:
		for _, f := range hs.UserKnownHosts {
			e.KnownHosts = append(e.KnownHosts, sshconfig.ExpandPath(f, tok))
		}
		e.KnownHosts = append(e.KnownHosts, "/etc/ssh/ssh_known_hosts")
	default:
		e.KnownHosts = []string{filepath.Join(sshDir, "known_hosts"), filepath.Join(sshDir, "known_hosts2"), "/etc/ssh/ssh_known_hosts"}
	}
	switch {
	case o.AgentSocket != "":
		e.AgentSocket = o.AgentSocket
	case hs.IdentityAgent != "" && hs.IdentityAgent != "SSH_AUTH_SOCK":
		e.AgentSocket = sshconfig.ExpandPath(strings.TrimPrefix(hs.IdentityAgent, "$"), tok)
		if strings.HasPrefix(hs.IdentityAgent, "$") {
			e.AgentSocket = os.Getenv(hs.IdentityAgent[1:])
		}
	default:
		e.AgentSocket = os.Getenv("SSH_AUTH_SOCK")
	}
	if e.AgentSocket == "none" {
		e.AgentSocket = ""
	}
	return e, nil
}

// ConnectError means nothing usable answered: refused, timed out, or the
// connection broke before authentication.
type ConnectError struct {
	Addr string
	Err  error
}

func (e *ConnectError) Error() string { return fmt.Sprintf("cannot reach %s: %v", e.Addr, e.Err) }
func (e *ConnectError) Unwrap() error { return e.Err }

// AuthError means the server refused every credential offered.
type AuthError struct {
	User  string
	Addr  string
	Tried []string // what was offered, e.g. "agent (2 keys)", "~/.ssh/id_ed25519", "password"
	Notes []string // identity files skipped and why
	Err   error
}

func (e *AuthError) Error() string {
	s := fmt.Sprintf("%s@%s refused every credential offered", e.User, e.Addr)
	if len(e.Tried) > 0 {
		s += " (tried: " + strings.Join(e.Tried, ", ") + ")"
	} else {
		s += " (no agent, no usable key file and no password)"
	}
	if len(e.Notes) > 0 {
		s += "; " + strings.Join(e.Notes, "; ")
	}
	return s
}
func (e *AuthError) Unwrap() error { return e.Err }

func dialTCP(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &ConnectError{Addr: addr, Err: err}
	}
	return c, nil
}

// stopOnCancel breaks a handshake stuck on a silent server when ctx ends.
func stopOnCancel(ctx context.Context, c net.Conn) (stop func() bool) {
	return context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
}

func classifyHandshake(err error, addr string, heard *heardConn) error {
	if err == nil {
		return nil
	}
	var he *HostKeyError
	if errors.As(err, &he) {
		return he
	}
	// keyboard-interactive refused before any prompt surfaces as message 51
	// (USERAUTH_FAILURE) where an info request was expected.
	if msg := err.Error(); strings.Contains(msg, "unable to authenticate") || strings.Contains(msg, "unexpected message type 51 ") ||
		strings.Contains(msg, "Too many authentication failures") {
		return &AuthError{Addr: addr, Err: err}
	}
	ioFailure := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrDeadlineExceeded)
	var ne net.Error
	if errors.As(err, &ne) {
		ioFailure = true
	}
	// Something answered but is not an SSH server, or an SSH server broke
	// the protocol: no retry fixes that. A server that merely hung up
	// (or never spoke) may be busy or starting: that is worth retrying.
	if first := heard.first(); len(first) > 0 && !bytes.HasPrefix(first, []byte("SSH-")) && !bytes.Contains(first, []byte("\nSSH-")) {
		return &ProtocolError{Addr: addr, Err: fmt.Errorf("the server does not speak SSH: it sent %q", clip(first, 48))}
	}
	if !ioFailure {
		return &ProtocolError{Addr: addr, Err: err}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, os.ErrDeadlineExceeded) {
		return &ConnectError{Addr: addr, Err: fmt.Errorf("the connection ended during the SSH handshake (%v)", err)}
	}
	return &ConnectError{Addr: addr, Err: err}
}

// ProtocolError means the server answered with something that is not
// SSH, or broke the protocol. It is permanent: retrying cannot fix it.
type ProtocolError struct {
	Addr string
	Err  error
}

func (e *ProtocolError) Error() string { return fmt.Sprintf("%s: %v", e.Addr, e.Err) }
func (e *ProtocolError) Unwrap() error { return e.Err }

// connLost classes why an established connection ended: a protocol
// violation (a malformed packet, a bad MAC) or a plain loss.
func connLost(addr string, err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return &ConnectError{Addr: addr, Err: fmt.Errorf("connection lost: %v", err)}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return &ConnectError{Addr: addr, Err: fmt.Errorf("connection lost: %v", err)}
	}
	return &ProtocolError{Addr: addr, Err: fmt.Errorf("the server broke the SSH protocol: %v", err)}
}

// heardConn keeps the first bytes the server sent, to tell a server that
// speaks something else from one that hung up. It also reads the socket
// in large gulps, paced (pacedConn): x/crypto/ssh reads through a 4 KiB
// buffer, two reads per packet, and a flood of terminal output arrives as
// many packets of a PTY's 4 KiB each; one read here brings what queued up.
type heardConn struct {
	net.Conn
	in    *bufio.Reader
	mu    sync.Mutex
	buf   []byte
	heard atomic.Bool // buf is full
}

const (
	heardMax   = 256
	readBuffer = 64 << 10
)

func newHeardConn(c net.Conn) *heardConn {
	return &heardConn{Conn: c, in: bufio.NewReaderSize(&pacedConn{Conn: c}, readBuffer)}
}

func (h *heardConn) Read(p []byte) (int, error) {
	n, err := h.in.Read(p)
	if n > 0 && !h.heard.Load() {
		h.mu.Lock()
		if room := heardMax - len(h.buf); room > 0 {
			h.buf = append(h.buf, p[:min(n, room)]...)
		}
		h.heard.Store(len(h.buf) >= heardMax)
		h.mu.Unlock()
	}
	return n, err
}

func (h *heardConn) first() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]byte(nil), h.buf...)
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
