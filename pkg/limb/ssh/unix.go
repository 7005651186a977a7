package ssh

import (
	"context"
	"net"

	"github.com/dvvhq/dvv/pkg/sshx"
	"github.com/dvvhq/dvv/pkg/wire"
)

// DialUnix reaches a Unix socket on a remote machine (a hypervisor's QMP
// or libvirt socket) through SSH, with the user's keys, agent and
// known_hosts, as OpenSSH's -L local:/remote/socket would. Closing the
// connection closes the SSH connection under it. Failures are coded as an
// SSH limb's dial (HOSTKEY_UNKNOWN, AUTH_FAILED, UNREACHABLE).
func DialUnix(ctx context.Context, user, host string, port int, socket string) (net.Conn, error) {
	return Options{}.DialUnix(ctx, user, host, port, socket)
}

// DialUnix is the package-level DialUnix with these options.
func (o Options) DialUnix(ctx context.Context, user, host string, port int, socket string) (net.Conn, error) {
	c, err := sshx.Dial(ctx, o.sshOptions(host, port, user, ""))
	if err != nil {
		return nil, dialError(err, host, port)
	}
	conn, err := c.SSH.Dial("unix", socket)
	if err != nil {
		c.Close()
		return nil, wire.Errorf(wire.Unreachable, "the SSH server at %s did not open %s: %v", host, socket, err)
	}
	return &unixConn{Conn: conn, client: c}, nil
}

// unixConn is the forwarded socket; it owns its SSH connection.
type unixConn struct {
	net.Conn
	client *sshx.Client
}

func (u *unixConn) Close() error {
	err := u.Conn.Close()
	u.client.Close()
	return err
}
