package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/pkg/sftp"

	"github.com/dvvhq/dvv/pkg/sshx"
	"github.com/dvvhq/dvv/pkg/wire"
)

// trustCommand is what a person runs to trust a host key.
func trustCommand(address string, port int) string {
	if port == 0 || port == 22 {
		return "dvv hosts trust " + address
	}
	return "dvv hosts trust " + net.JoinHostPort(address, strconv.Itoa(port)) // [v6]:port
}

// dialError turns a connection failure into the code the daemon shows.
func dialError(err error, address string, port int) *wire.Error {
	var we *wire.Error
	var he *sshx.HostKeyError
	var ae *sshx.AuthError
	var ce *sshx.ConnectError
	var pe *sshx.ProtocolError
	switch {
	case errors.As(err, &we):
		return we
	case errors.As(err, &he) && he.Changed:
		return withFingerprint(he.Fingerprint, wire.Errorf(wire.HostKeyChanged,
			"WARNING: the SSH host key of %s HAS CHANGED. The server now presents %s %s, which differs from the key recorded in %s line %d. "+
				"Someone may be intercepting the connection, or the machine was reinstalled. dvv refused to connect. "+
				"Verify the new fingerprint out of band; only if the change is legitimate, remove the old line (ssh-keygen -R '%s' -f %s) and run `%s`.",
			he.Address, he.KeyType, he.Fingerprint, he.KnownFile, he.KnownLine, he.Address, he.KnownFile, trustCommand(address, port)))
	case errors.As(err, &he):
		cmd := trustCommand(address, port) + " --fingerprint " + he.Fingerprint
		e := wire.Errorf(wire.HostKeyUnknown,
			"the SSH host key of %s is not trusted yet: %s %s. Check the fingerprint with the machine's owner, then run `%s`.",
			he.Address, he.KeyType, he.Fingerprint, cmd)
		e.Fingerprint = he.Fingerprint
		e.Next = "Check the fingerprint with the machine's owner (on the machine: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub); if it is the same, run `" + cmd + "`"
		return e
	case errors.As(err, &ae):
		return wire.Errorf(wire.AuthFailed, "%v. Load the right key into ssh-agent, name it with IdentityFile in ~/.ssh/config, or save a password for this host.", ae)
	case errors.As(err, &pe):
		return wire.Errorf(wire.ProtocolError, "%v. This is not a working SSH server: check the port, and that an SSH server (not another service) listens there.", pe)
	case errors.As(err, &ce):
		return wire.Errorf(wire.Unreachable, "%v. Check the address and port, and that an SSH server runs there.", ce)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return wire.Errorf(wire.Unreachable, "no SSH connection to %s:%d before the deadline: %v", address, port, err)
	default:
		return wire.Errorf(wire.Unreachable, "connecting to %s:%d over SSH: %v", address, port, err)
	}
}

func withFingerprint(fp string, e *wire.Error) *wire.Error {
	e.Fingerprint = fp
	return e
}

// filesUnavailable wraps a sidecar failure: the daemon sees
// FILES_UNAVAILABLE with the underlying reason and its remedy.
func filesUnavailable(err error, address string, port int) *wire.Error {
	inner := dialError(err, address, port)
	e := wire.Errorf(wire.FilesUnavailable, "no SFTP route to %s: %s (%s). %s", address, reasonWord(inner.Code), inner.Message, inner.Next)
	e.Fingerprint = inner.Fingerprint // an untrusted or changed host key's
	return e
}

func reasonWord(c wire.Code) string {
	switch c {
	case wire.HostKeyUnknown:
		return "host key not trusted yet"
	case wire.HostKeyChanged:
		return "host key CHANGED"
	case wire.AuthFailed:
		return "SSH authentication failed"
	case wire.Unreachable:
		return "no SSH server answers"
	case wire.ProtocolError:
		return "the server there does not speak SSH properly"
	}
	return strings.ToLower(string(c))
}

// opError turns a failure on a live connection into a coded error.
func opError(err error, what string) error {
	if err == nil {
		return nil
	}
	var we *wire.Error
	var cl *sshx.ConnLostError
	var cwd *sshx.CwdError
	var se *sftp.StatusError
	var cr *sshx.ChannelRefusedError
	var su *sshx.SudoError
	switch {
	case errors.As(err, &su):
		return &wire.Error{Code: wire.SudoRefused, Message: fmt.Sprintf("%v; the command did not run", su),
			Next: "Run it without sudo, or have the machine's administrator allow this user to run commands as root without a password (a sudoers rule with NOPASSWD, e.g. in /etc/sudoers.d/); do not retry as is."}
	case errors.As(err, &cr):
		return wire.Errorf(wire.Busy, "%s: %v. Wait for a running command or transfer on this limb to finish, then retry.", what, cr)
	case errors.As(err, &we):
		return we
	case errors.As(err, &cl):
		return wire.Errorf(wire.NotConnected, "%s: %v", what, cl)
	case errors.As(err, &cwd):
		return wire.Errorf(wire.NotFound, "%v; the command did not run. Give an existing directory as cwd (list it with files).", cwd)
	case errors.Is(err, context.DeadlineExceeded):
		return wire.Errorf(wire.Timeout, "%s: the deadline passed", what)
	case errors.Is(err, os.ErrNotExist):
		return wire.Errorf(wire.NotFound, "%s: no such file or directory", what)
	case errors.Is(err, os.ErrPermission):
		return wire.Errorf(wire.BadRequest, "%s: permission denied on the remote machine", what)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, sftp.ErrSSHFxConnectionLost):
		return wire.Errorf(wire.NotConnected, "%s: the SSH connection ended", what)
	case errors.As(err, &se):
		return wire.Errorf(wire.BadRequest, "%s: the SFTP server refused: %v", what, se)
	default:
		return wire.Errorf(wire.Internal, "%s: %v", what, err)
	}
}

func badRequest(format string, args ...any) *wire.Error {
	return wire.Errorf(wire.BadRequest, format, args...)
}
