package sshx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// Client is one authenticated SSH connection. Commands, shells and SFTP
// sessions open channels on it, so it stays warm between them.
type Client struct {
	SSH      *ssh.Client
	Endpoint *Endpoint

	done    chan struct{}
	errOnce sync.Once
	err     error
}

// Done closes when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (nil while it is up, or after Close).
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close ends the connection.
func (c *Client) Close() error {
	c.fail(nil)
	return c.SSH.Close()
}

func (c *Client) fail(err error) {
	c.errOnce.Do(func() {
		c.err = err
		close(c.done)
	})
}

// Dial connects and authenticates as OpenSSH would for o.
func Dial(ctx context.Context, o Options) (*Client, error) {
	ep, err := Resolve(o)
	if err != nil {
		return nil, err
	}
	checker, err := newHostKeyChecker(ep.KnownHosts)
	if err != nil {
		return nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, ep.ConnectTimeout)
	defer cancel()
	addr := ep.Addr()
	tcp, err := dialTCP(hctx, addr)
	if err != nil {
		return nil, err
	}
	heard := newHeardConn(tcp)
	var conn net.Conn = heard
	auth, cleanup := authMethods(ep, o.Password)
	defer cleanup()
	cfg := &ssh.ClientConfig{
		User:              ep.User,
		Auth:              auth.methods,
		HostKeyCallback:   checker.check,
		HostKeyAlgorithms: checker.knownAlgorithms(addr, conn.RemoteAddr()),
		ClientVersion:     "SSH-2.0-dvv",
	}
	stop := stopOnCancel(hctx, conn)
	sc, chans, reqs, err := ssh.NewClientConn(conn, addr, cfg)
	stopped := stop()
	if err != nil {
		conn.Close()
		err = classifyHandshake(err, addr, heard)
		var ae *AuthError
		if errors.As(err, &ae) {
			ae.User, ae.Tried, ae.Notes = ep.User, auth.tried, auth.notes
		}
		var ce *ConnectError
		if errors.As(err, &ce) && hctx.Err() != nil {
			ce.Err = fmt.Errorf("no SSH handshake within %v", ep.ConnectTimeout)
		}
		return nil, err
	}
	if !stopped {
		conn.Close()
		return nil, &ConnectError{Addr: addr, Err: hctx.Err()}
	}
	conn.SetDeadline(time.Time{})
	c := &Client{SSH: ssh.NewClient(sc, chans, reqs), Endpoint: ep, done: make(chan struct{})}
	go func() {
		err := c.SSH.Wait()
		c.fail(connLost(addr, err))
	}()
	ka := o.KeepAlive
	if ka == 0 {
		ka = 10 * time.Second
	}
	if ka > 0 {
		go c.keepAlive(ka)
	}
	return c, nil
}

// keepAlive probes the server so a machine that vanished without closing
// the TCP connection is noticed within about three intervals.
func (c *Client) keepAlive(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		answered := make(chan struct{})
		go func() {
			c.SSH.SendRequest("keepalive@openssh.com", true, nil)
			close(answered)
		}()
		select {
		case <-answered:
		case <-c.done:
			return
		case <-time.After(2 * every):
			c.fail(&ConnectError{Addr: c.Endpoint.Addr(), Err: fmt.Errorf("the server stopped answering (no keepalive reply within %v)", 2*every)})
			c.SSH.Close()
			return
		}
	}
}

type authSet struct {
	methods []ssh.AuthMethod
	tried   []string
	notes   []string
}

// authMethods builds OpenSSH's order: agent keys, then identity files,
// then the password (password, then keyboard-interactive).
func authMethods(ep *Endpoint, password string) (authSet, func()) {
	var a authSet
	cleanup := func() {}
	var signers []ssh.Signer
	seen := map[string]bool{}
	add := func(s ssh.Signer) bool {
		k := string(s.PublicKey().Marshal())
		if seen[k] {
			return false
		}
		seen[k] = true
		signers = append(signers, s)
		return true
	}
	var fileKeys [][]byte // public keys named by identity files, for IdentitiesOnly
	var fileSigners []ssh.Signer
	var fileNames []string
	for _, f := range ep.IdentityFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			if pub, err := os.ReadFile(f + ".pub"); err == nil {
				if k, _, _, _, err := ssh.ParseAuthorizedKey(pub); err == nil {
					fileKeys = append(fileKeys, k.Marshal())
				}
			}
			continue
		}
		s, err := ssh.ParsePrivateKey(b)
		var pm *ssh.PassphraseMissingError
		switch {
		case errors.As(err, &pm):
			a.notes = append(a.notes, fmt.Sprintf("skipped %s: it is encrypted (add it to ssh-agent with ssh-add)", f))
			if pm.PublicKey != nil {
				fileKeys = append(fileKeys, pm.PublicKey.Marshal())
			}
		case err != nil:
			a.notes = append(a.notes, fmt.Sprintf("skipped %s: %v", f, err))
		default:
			fileKeys = append(fileKeys, s.PublicKey().Marshal())
			fileSigners = append(fileSigners, s)
			fileNames = append(fileNames, f)
		}
	}
	if ep.AgentSocket != "" {
		if conn, err := net.DialTimeout("unix", ep.AgentSocket, 2*time.Second); err == nil {
			cleanup = func() { conn.Close() }
			if as, err := agent.NewClient(conn).Signers(); err == nil {
				n := 0
				for _, s := range as {
					if ep.IdentitiesOnly && !containsKey(fileKeys, s.PublicKey().Marshal()) {
						continue
					}
					if add(s) {
						n++
					}
				}
				if n > 0 {
					a.tried = append(a.tried, fmt.Sprintf("agent (%d keys)", n))
				}
			}
		} else {
			a.notes = append(a.notes, fmt.Sprintf("agent at %s not reachable: %v", ep.AgentSocket, err))
		}
	}
	for i, s := range fileSigners {
		if add(s) {
			a.tried = append(a.tried, fileNames[i])
		}
	}
	if len(signers) > 0 {
		a.methods = append(a.methods, ssh.PublicKeys(signers...))
	}
	if password != "" {
		a.tried = append(a.tried, "password")
		a.methods = append(a.methods, ssh.Password(password),
			ssh.KeyboardInteractive(func(_, _ string, questions []string, echos []bool) ([]string, error) {
				answers := make([]string, len(questions))
				for i := range questions {
					if !echos[i] { // a hidden prompt is the password prompt
						answers[i] = password
					}
				}
				return answers, nil
			}))
	}
	return a, cleanup
}

func containsKey(keys [][]byte, k []byte) bool {
	for _, x := range keys {
		if bytes.Equal(x, k) {
			return true
		}
	}
	return false
}
