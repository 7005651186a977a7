package rdp

import (
	"context"
	"errors"
	"net"
	"strconv"

	"github.com/dvvhq/dvv/pkg/limb/pins"
	"github.com/dvvhq/dvv/pkg/rdp"
	"github.com/dvvhq/dvv/pkg/wire"
)

// trustCommand is what a person runs to trust a certificate.
func trustCommand(hostport string) string { return "dvv hosts trust " + hostport + " --protocol rdp" }

func withFingerprint(fp string, e *wire.Error) *wire.Error {
	e.Fingerprint = fp
	return e
}

// codedError turns an rdp failure into the code the daemon shows.
func codedError(err error, hostport string) *wire.Error {
	if err == nil {
		return nil
	}
	var (
		we  *wire.Error
		ae  *rdp.AuthError
		ce  *rdp.CertError
		pe  *rdp.ProtocolError
		ue  *rdp.UnsupportedError
		ne  *rdp.NegotiationError
		de  *rdp.DisconnectError
		unr *rdp.UnreachableError
	)
	switch {
	case errors.As(err, &we):
		return we
	case errors.As(err, &ce) && ce.Changed:
		return withFingerprint(ce.Fingerprint, wire.Errorf(wire.HostKeyChanged,
			"WARNING: the TLS certificate of RDP server %s HAS CHANGED: it now presents SHA256 %s, but SHA256 %s was trusted (%s). "+
				"Someone may be intercepting the connection, or the server got a new certificate. dvv refused to connect. "+
				"Verify the new fingerprint out of band; only if the change is legitimate, delete the old line from %s and run `%s`.",
			ce.HostPort, ce.Fingerprint, ce.Pinned, knownCertsFile(), knownCertsFile(), trustCommand(hostport)))
	case errors.As(err, &ce):
		cmd := pins.TrustCommand(hostport, wire.ProtoRDP, ce.Fingerprint)
		e := wire.Errorf(wire.HostKeyUnknown,
			"the TLS certificate of RDP server %s is not trusted yet: SHA256 %s. Check the fingerprint with the machine's owner, then run `%s`.",
			ce.HostPort, ce.Fingerprint, cmd)
		e.Fingerprint = ce.Fingerprint
		e.Next = "Check the fingerprint with the machine's owner (on Windows: the certificate's SHA-256 thumbprint in the Remote Desktop certificate store); if it is the same, run `" + cmd + "`"
		return e
	case errors.As(err, &ae):
		return wire.Errorf(wire.AuthFailed, "%v. Fix the saved user name, domain or password for %s.", ae, hostport)
	case errors.As(err, &ne):
		switch ne.Code {
		case rdp.NegHybridRequired:
			return wire.Errorf(wire.AuthFailed, "%v: save a user name and password for %s", ne, hostport)
		default:
			return wire.Errorf(wire.Unsupported, "%v", ne)
		}
	case errors.As(err, &ue):
		return wire.Errorf(wire.Unsupported, "%v", ue)
	case errors.As(err, &pe):
		return wire.Errorf(wire.ProtocolError, "%v; the session was ended to protect dvvd", pe)
	case errors.As(err, &de) && de.Info == rdp.InfoTakenOver:
		return wire.Errorf(wire.NotConnected, "%v; dvv does not take the session back by itself: call reconnect to take it over again", de)
	case errors.As(err, &de):
		return wire.Errorf(wire.NotConnected, "%v", de)
	case errors.As(err, &unr):
		return wire.Errorf(wire.Unreachable, "%v. Check the address and port, and that an RDP server runs there.", unr)
	case errors.Is(err, rdp.ErrClosed):
		return wire.Errorf(wire.NotConnected, "the RDP session was closed")
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return wire.Errorf(wire.Unreachable, "no RDP session with %s before the deadline: %v", hostport, err)
	}
	var nerr net.Error
	if errors.As(err, &nerr) {
		return wire.Errorf(wire.Unreachable, "RDP connection to %s: %v", hostport, err)
	}
	return wire.Errorf(wire.ProtocolError, "RDP session with %s: %v", hostport, err)
}

func hostPort(address string, port int) string {
	if port == 0 {
		port = 3389
	}
	return net.JoinHostPort(address, strconv.Itoa(port))
}
