// Package rfb is a client for the Remote Framebuffer protocol (VNC), RFB
// 3.3, 3.7 and 3.8. It mirrors the remote screen into a *fb.Buffer and sends
// pointer, key and clipboard events. It knows nothing of the daemon's
// concepts; every length the server controls is bounded before anything is
// allocated, and a hostile or garbled stream fails the Client with a
// *ProtocolError.
package rfb

import (
	"errors"
	"fmt"
	"strings"
)

// ProtocolError means the server sent something malformed, out of bounds or
// hostile. The connection is unusable afterwards.
type ProtocolError struct {
	Msg string
	Err error // underlying cause, if any
}

func (e *ProtocolError) Error() string {
	if e.Err != nil {
		return "rfb: protocol error: " + e.Msg + ": " + e.Err.Error()
	}
	return "rfb: protocol error: " + e.Msg
}

func (e *ProtocolError) Unwrap() error { return e.Err }

func protoErr(format string, args ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, args...)}
}

// AuthError means the server refused the credentials. Reason is the server's
// own explanation when it gave one.
type AuthError struct {
	Reason string
}

func (e *AuthError) Error() string {
	if e.Reason == "" {
		return "rfb: authentication failed"
	}
	return "rfb: authentication failed: " + e.Reason
}

// ErrUnsupportedSecurity is matched (errors.Is) by every
// *UnsupportedSecurityError.
var ErrUnsupportedSecurity = errors.New("rfb: no supported security type")

// UnsupportedSecurityError says which security types the server offered when
// none of them is one this client speaks (or can use with the credentials
// given). Hint names what the server can be configured with instead.
type UnsupportedSecurityError struct {
	Offered []string
	Hint    string
}

func (e *UnsupportedSecurityError) Error() string {
	s := "rfb: no supported security type; server offered " + strings.Join(e.Offered, ", ")
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

func (e *UnsupportedSecurityError) Is(target error) bool { return target == ErrUnsupportedSecurity }

// UnknownCertError is returned (by a TLSPolicy hook) when the server's
// certificate has not been trusted yet.
type UnknownCertError struct {
	Fingerprint string // SHA-256, colon-separated upper-case hex
	Subject     string
}

func (e *UnknownCertError) Error() string {
	return "rfb: server certificate is not trusted yet (SHA-256 " + e.Fingerprint + ")"
}

// CertChangedError is returned when the server's certificate differs from
// the one trusted before.
type CertChangedError struct {
	Fingerprint string // presented now
	Pinned      string // trusted before
}

func (e *CertChangedError) Error() string {
	return "rfb: server certificate changed: now SHA-256 " + e.Fingerprint + ", trusted " + e.Pinned
}

// ServerError is a connection refused by the server during the handshake
// with a reason (e.g. "too many connections").
type ServerError struct {
	Reason string
}

func (e *ServerError) Error() string { return "rfb: server refused the connection: " + e.Reason }
