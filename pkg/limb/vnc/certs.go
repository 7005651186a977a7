package vnc

import (
	"context"
	"crypto/tls"
	"errors"
	"net"

	"github.com/dvvhq/dvv/pkg/limb/pins"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TrustCertChecked is what `dvv hosts trust --protocol vnc` runs: it fetches
// the certificate the server at hostport presents (VeNCrypt X509, or the TLS
// of a wss:// endpoint) and pins it only when it is the fingerprint the user
// checked, or, with none given, when acceptNew says a new certificate may be
// pinned. Otherwise nothing is written: a different certificate is
// HOSTKEY_CHANGED, an unchecked one HOSTKEY_UNKNOWN with its fingerprint.
func TrustCertChecked(ctx context.Context, hostport, checked string, acceptNew bool) (fingerprint string, already bool, err error) {
	der, err := presentedCert(ctx, hostport)
	if err != nil {
		return "", false, err
	}
	fp := rfb.Fingerprint(der)
	what := "the TLS certificate of VNC server " + hostport
	pinned, ok, err := pins.Lookup(hostport)
	if err != nil {
		return "", false, wire.Errorf(wire.Internal, "reading trusted certificates: %v", err)
	}
	if ok && !pins.Same(pinned, fp) {
		return "", false, mapError(&rfb.CertChangedError{Fingerprint: fp, Pinned: pinned}, hostport)
	}
	if ok {
		if checked != "" && !pins.Matches(checked, fp) {
			return "", false, pins.Mismatch(what, hostport, wire.ProtoVNC, checked, fp)
		}
		return fp, true, nil
	}
	if err := pins.Decide(what, hostport, wire.ProtoVNC, fp, checked, acceptNew); err != nil {
		return "", false, err
	}
	var changed *pins.ChangedError
	if err := pins.Trust(hostport, fp); errors.As(err, &changed) { // pinned by someone else meanwhile
		return "", false, mapError(&rfb.CertChangedError{Fingerprint: fp, Pinned: changed.Pinned}, hostport)
	} else if err != nil {
		return "", false, wire.Errorf(wire.Internal, "recording the certificate: %v", err)
	}
	return fp, false, nil
}

// errCaptured stops a handshake once the certificate is in hand.
var errCaptured = errors.New("certificate captured")

// presentedCert is the leaf certificate the server at hostport presents:
// through a TLS handshake first (a wss:// endpoint speaks TLS from the first
// byte; an RFB server answers it with its version line, which ends it at
// once), else through the RFB handshake up to VeNCrypt's TLS. Nothing is
// authenticated and no password is sent.
func presentedCert(ctx context.Context, hostport string) ([]byte, error) {
	var der []byte
	capture := func(raw []byte) error {
		der = append([]byte(nil), raw...)
		return &rfb.UnknownCertError{Fingerprint: rfb.Fingerprint(raw)}
	}
	d := tls.Dialer{NetDialer: &net.Dialer{}, Config: &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true, // the fingerprint is checked instead
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) > 0 {
				capture(cs.PeerCertificates[0].Raw)
			}
			return errCaptured
		}}}
	if conn, err := d.DialContext(ctx, "tcp", hostport); err == nil {
		conn.Close()
	}
	if der != nil {
		return der, nil
	}
	c, rfbErr := rfb.Dial(ctx, hostport, &rfb.Config{Shared: true, CertOnly: true, TLS: &rfb.TLSPolicy{Verify: capture}})
	if c != nil {
		c.Close()
	}
	if der != nil {
		return der, nil
	}
	var auth *rfb.AuthError
	if rfbErr == nil || errors.As(rfbErr, &auth) {
		return nil, &wire.Error{Code: wire.Unsupported,
			Message: "the VNC server at " + hostport + " presents no TLS certificate (it offers no VeNCrypt X509 security and is not a wss:// endpoint), so there is nothing to trust; nothing was written",
			Next:    "open it directly; its connection is not encrypted, so use it only over a network you trust or an SSH tunnel"}
	}
	return nil, mapError(rfbErr, hostport)
}
