// Package keychain keeps host secrets in the operating system's keychain:
// the Secret Service over D-Bus on Linux (gnome-keyring, KeePassXC, KWallet's
// bridge…) and the login Keychain on macOS. Without a keychain every call
// fails with *UnavailableError, whose message says how to get one; the
// layered keychain dvvd uses (WithFiles) then stores into the 0600
// credentials file instead, and says so.
//
// Items carry the attributes
//
//	application = "dvv"
//	dvv-host    = <saved host id, e.g. h-1a2b3c4d>
//	dvv-kind    = "password"
//
// so `secret-tool lookup application dvv dvv-host h-1a2b3c4d` finds one.
//
// Secrets cross into dvvd's memory only to dial a machine; no error built
// here ever contains one.
package keychain

import (
	"errors"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Keychain stores one secret per saved host id.
type Keychain interface {
	// Get returns the host's secret, or ErrNotFound when none is stored.
	Get(hostID string) (secret string, err error)
	// Set stores (or replaces) the host's secret under a human label.
	Set(hostID, label, secret string) error
	// Delete removes the host's secret; none stored is not an error.
	Delete(hostID string) error
	// Has reports whether a secret is stored, without reading it.
	Has(hostID string) bool
}

// Attribute names and values on every item dvv writes.
const (
	AttrApplication = "application"
	AttrHost        = "dvv-host"
	AttrKind        = "dvv-kind"
	Application     = "dvv"
	KindPassword    = "password"
)

// ErrNotFound is returned by Get when no secret is stored for the host.
var ErrNotFound = errors.New("no credential stored for this host; save one with: dvv hosts add <name> … --password-stdin")

// UnavailableError says that no keychain could be reached, why, and how to
// get one. The daemon answers it KEYCHAIN_UNAVAILABLE.
type UnavailableError struct {
	Reason string // what went wrong
	Fix    string // what the user can do
}

func (e *UnavailableError) Error() string {
	return "keychain unavailable: " + e.Reason + ". " + e.Fix
}

// Wire converts to the socket's coded error.
func (e *UnavailableError) Wire() *wire.Error {
	we := wire.Errorf(wire.KeychainMissing, "%s", e.Error())
	return we
}

// WireError maps this package's errors to coded errors: ErrNotFound to
// NOT_FOUND, *UnavailableError to KEYCHAIN_UNAVAILABLE, anything else to
// KEYCHAIN_UNAVAILABLE as well (the keychain misbehaved; the message says
// how), and nil to nil.
func WireError(err error) *wire.Error {
	if err == nil {
		return nil
	}
	var ue *UnavailableError
	if errors.As(err, &ue) {
		return ue.Wire()
	}
	if errors.Is(err, ErrNotFound) {
		return wire.Errorf(wire.NotFound, "%s", err.Error())
	}
	return wire.Errorf(wire.KeychainMissing, "keychain error: %s", err.Error())
}

// checkHostID refuses ids that could not have come from pkg/hosts, so an
// attribute never carries something surprising.
func checkHostID(id string) error {
	if id == "" || len(id) > 300 || strings.ContainsAny(id, "\x00\n\r") {
		return wire.Errorf(wire.BadRequest, "host id %q is not valid", id)
	}
	return nil
}

// scrub removes a secret from a message that came from outside (a D-Bus
// error, a tool's stderr), in case the other side echoed it.
func scrub(msg, secret string) string {
	if secret == "" {
		return msg
	}
	return strings.ReplaceAll(msg, secret, "[secret]")
}
