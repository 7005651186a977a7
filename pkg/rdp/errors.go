// Package rdp is a stand-alone Remote Desktop Protocol client: X.224
// negotiation, TLS with a certificate hook, CredSSP/NLA (NTLMv2), MCS/GCC
// connection, capability exchange, fast-path and slow-path bitmap updates
// written into a pkg/fb framebuffer, and fast-path input.
//
// It advertises no drawing orders and no GFX/RemoteFX/NSCodec, so servers
// send plain bitmap updates (planar at 32 bpp, interleaved RLE below).
package rdp

import (
	"errors"
	"fmt"
)

// ProtocolError means the server sent something malformed, hostile or
// outside what this client negotiated. The session cannot continue.
type ProtocolError struct {
	Where string // the PDU or field being read
	Msg   string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("rdp: malformed %s: %s", e.Where, e.Msg)
}

func protoErr(where, format string, args ...any) error {
	return &ProtocolError{Where: where, Msg: fmt.Sprintf(format, args...)}
}

// AuthError means the server refused the credentials.
type AuthError struct {
	Msg    string
	Status uint32 // NTSTATUS from the server's TSRequest, 0 when it just closed
}

func (e *AuthError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("rdp: authentication failed: %s (status 0x%08X)", e.Msg, e.Status)
	}
	return "rdp: authentication failed: " + e.Msg
}

// UnsupportedError means the server insists on something this client does
// not speak (standard RDP security, RDSTLS, Azure AD, a licence exchange…).
type UnsupportedError struct{ Msg string }

func (e *UnsupportedError) Error() string { return "rdp: unsupported: " + e.Msg }

// NegotiationError is the server's RDP_NEG_FAILURE answer to our
// connection request.
type NegotiationError struct {
	Code uint32
}

// Negotiation failure codes (MS-RDPBCGR 2.2.1.2.2).
const (
	NegSSLRequired             = 0x1
	NegSSLNotAllowed           = 0x2
	NegSSLCertNotOnServer      = 0x3
	NegInconsistentFlags       = 0x4
	NegHybridRequired          = 0x5
	NegSSLWithUserAuthRequired = 0x6
)

func (e *NegotiationError) Error() string {
	switch e.Code {
	case NegSSLRequired:
		return "rdp: server requires TLS security"
	case NegSSLNotAllowed:
		return "rdp: server allows only standard RDP security (legacy RC4 encryption), which this client does not speak; enable TLS or NLA on the server"
	case NegSSLCertNotOnServer:
		return "rdp: server has no TLS certificate configured; configure one on the server"
	case NegInconsistentFlags:
		return "rdp: server found our protocol request inconsistent"
	case NegHybridRequired:
		return "rdp: server requires NLA (CredSSP); give a user name and password"
	case NegSSLWithUserAuthRequired:
		return "rdp: server requires TLS with user authentication (RDSTLS), which this client does not speak"
	}
	return fmt.Sprintf("rdp: server refused the connection request (failure code %d)", e.Code)
}

// CertError is returned by the default certificate check, and is the error
// a Config.VerifyCert hook is expected to return, so callers can tell an
// unknown certificate from a changed one.
type CertError struct {
	Changed     bool   // a different certificate was pinned before
	HostPort    string // where we connected
	Fingerprint string // SHA-256 of the DER certificate, hex with colons
	Pinned      string // the fingerprint pinned before, when Changed
}

func (e *CertError) Error() string {
	if e.Changed {
		return fmt.Sprintf("rdp: TLS certificate of %s changed: now SHA256 %s, trusted was SHA256 %s", e.HostPort, e.Fingerprint, e.Pinned)
	}
	return fmt.Sprintf("rdp: TLS certificate of %s is not trusted yet: SHA256 %s", e.HostPort, e.Fingerprint)
}

// DisconnectError says the server ended the session, with its reason when
// it gave one (Set Error Info PDU or an MCS disconnect ultimatum).
type DisconnectError struct {
	Info   uint32 // errorInfo code, 0 when none was sent
	Reason string
}

func (e *DisconnectError) Error() string {
	if e.Info != 0 {
		return fmt.Sprintf("rdp: server ended the session: %s (error info 0x%08X)", e.Reason, e.Info)
	}
	return "rdp: server ended the session: " + e.Reason
}

// ErrClosed is the session's error after Close.
var ErrClosed = errors.New("rdp: session closed")
