package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// A dvvd on another machine is reached the way Docker contexts reach a
// remote engine: OpenSSH runs `dvv stdio-proxy` there, which connects its
// stdin and stdout to that user's own dvvd socket under that machine's
// socket rules. ssh itself brings ~/.ssh/config, keys, agents, jump hosts
// and known_hosts; dvv adds nothing to them.
//
//	ssh://[user@]host[:port][/id]   id: the remote dvvd instance (default "default")
//
// DVV_SSH_COMMAND replaces `ssh` (run by sh, as GIT_SSH_COMMAND is), and
// DVV_REMOTE_DVV names the dvv binary on the far side (default: dvv on the
// remote PATH).

// IsRemote reports a socket address that names another machine.
func IsRemote(socket string) bool { return strings.HasPrefix(socket, "ssh://") }

// Remote is a parsed ssh:// socket address.
type Remote struct {
	User, Host, Port, ID string
}

// only reports whether s is made of the letters and digits plus extra.
func only(s, extra string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(extra, r)) {
			return false
		}
	}
	return s != ""
}

// ParseRemote reads ssh://[user@]host[:port][/id].
func ParseRemote(s string) (Remote, error) {
	bad := func(why string) (Remote, error) {
		return Remote{}, &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("socket %q: %s", s, why),
			Next: "write it as ssh://[user@]host[:port][/id]"}
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "ssh" {
		return bad("not an ssh:// address")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return bad("no query, fragment or opaque part is allowed")
	}
	r := Remote{Host: u.Hostname(), Port: u.Port(), ID: strings.Trim(u.Path, "/")}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return bad("a password does not belong in the address (ssh asks, or use keys)")
		}
		r.User = u.User.Username()
	}
	if r.Host == "" || strings.HasPrefix(r.Host, "-") || !only(r.Host, "_.:%[]-") {
		return bad("the host is missing or not a host name")
	}
	if strings.HasPrefix(r.User, "-") || strings.ContainsAny(r.User, " \t\n'\"\\;$`") {
		return bad("the user name is not one")
	}
	if r.ID == "" {
		r.ID = "default"
	}
	if len(r.ID) > 64 || strings.HasPrefix(r.ID, "-") || strings.HasPrefix(r.ID, ".") || !only(r.ID, "._-") {
		return bad("the instance id after / may hold letters, digits, . _ and - only")
	}
	return r, nil
}

// sshArgs is the ssh command line (after the program) for r.
func (r Remote) sshArgs(remoteDvv string) []string {
	args := []string{"-T"}
	if r.User != "" {
		args = append(args, "-l", r.User)
	}
	if r.Port != "" {
		args = append(args, "-p", r.Port)
	}
	return append(args, "--", r.Host, shellQuote(remoteDvv)+" stdio-proxy --id "+r.ID)
}

// shellQuote quotes s for the remote user's shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sshConn is the ssh process's stdin and stdout as a net.Conn.
type sshConn struct {
	remote string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    io.ReadCloser
	stderr *tailBuffer
	once   sync.Once
}

func dialSSH(ctx context.Context, socket string) (*sshConn, error) {
	r, err := ParseRemote(socket)
	if err != nil {
		return nil, err
	}
	remoteDvv := os.Getenv("DVV_REMOTE_DVV")
	if remoteDvv == "" {
		remoteDvv = "dvv"
	}
	args := r.sshArgs(remoteDvv)
	var cmd *exec.Cmd
	if sc := os.Getenv("DVV_SSH_COMMAND"); sc != "" {
		cmd = exec.Command("sh", append([]string{"-c", sc + ` "$@"`, "ssh"}, args...)...)
	} else {
		cmd = exec.Command("ssh", args...)
	}
	c := &sshConn{remote: socket, cmd: cmd, stderr: &tailBuffer{max: 2048}}
	cmd.Stderr = c.stderr
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if c.out, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, &wire.Error{Code: wire.DaemonUnavailable, Message: fmt.Sprintf("cannot run ssh for %s: %v", socket, err),
			Next: "install OpenSSH's client (ssh), or set DVV_SSH_COMMAND"}
	}
	return c, nil
}

// explain turns a failure before the attachment into DAEMON_UNAVAILABLE
// carrying what ssh (or the remote dvv) said.
func (c *sshConn) explain(err error) error {
	c.Close()
	var we *wire.Error
	if errors.As(err, &we) && we.Code != wire.Internal && we.Code != wire.DaemonUnavailable {
		return err // dvvd answered: a refused token, say
	}
	said := strings.TrimSpace(c.stderr.String())
	if said == "" {
		said = err.Error()
	}
	return &wire.Error{Code: wire.DaemonUnavailable, Message: fmt.Sprintf("no dvvd answers through %s: %s", c.remote, said),
		Next: "check that `ssh HOST dvv ping` works (keys, ~/.ssh/config, dvv on the remote PATH or DVV_REMOTE_DVV) and that dvvd runs there"}
}

func (c *sshConn) Read(b []byte) (int, error)  { return c.out.Read(b) }
func (c *sshConn) Write(b []byte) (int, error) { return c.in.Write(b) }

// Close ends the ssh process: stdin closes (the remote proxy ends), and a
// process that lingers is killed.
func (c *sshConn) Close() error {
	c.once.Do(func() {
		c.in.Close()
		done := make(chan struct{})
		go func() { c.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			c.cmd.Process.Kill()
			<-done
		}
	})
	return nil
}

func (c *sshConn) LocalAddr() net.Addr                { return sshAddr(c.remote) }
func (c *sshConn) RemoteAddr() net.Addr               { return sshAddr(c.remote) }
func (c *sshConn) SetDeadline(t time.Time) error      { return nil }
func (c *sshConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *sshConn) SetWriteDeadline(t time.Time) error { return nil }

type sshAddr string

func (a sshAddr) Network() string { return "ssh" }
func (a sshAddr) String() string  { return string(a) }

// tailBuffer keeps the last max bytes written (ssh's stderr), for messages.
type tailBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
