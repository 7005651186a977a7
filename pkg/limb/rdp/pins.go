package rdp

import (
	"errors"
	"fmt"

	"github.com/dvvhq/dvv/pkg/limb/pins"
	"github.com/dvvhq/dvv/pkg/rdp"
)

// Certificate pins: RDP servers mostly present self-signed certificates, so
// trust works like SSH host keys. The first sight of a certificate is
// refused with its fingerprint (HOSTKEY_UNKNOWN) until a person trusts it;
// a different certificate later is refused as changed (HOSTKEY_CHANGED).
// Pins live in the file shared with VNC (pkg/limb/pins): one line per
// "host:port SHA-256-fingerprint".

// knownCertsFile names the pin file for messages.
func knownCertsFile() string {
	if p, err := pins.Path(); err == nil {
		return p
	}
	return "known_certs in the dvv config directory"
}

// checkPin is the rdp.Config.VerifyCert hook.
func checkPin(hostport string, der []byte, fp string) error {
	pinned, ok, err := pins.Lookup(hostport)
	if err != nil {
		return fmt.Errorf("reading trusted certificates: %w", err)
	}
	switch {
	case !ok:
		return &rdp.CertError{HostPort: hostport, Fingerprint: fp}
	case !pins.Same(pinned, fp):
		return &rdp.CertError{Changed: true, HostPort: hostport, Fingerprint: fp, Pinned: pinned}
	}
	return nil
}

// pin records fp for hostport. It refuses to replace a different pin, as
// for SSH host keys (pkg/limb/pins).
func pin(hostport, fp string) error {
	var changed *pins.ChangedError
	if err := pins.Trust(hostport, fp); errors.As(err, &changed) {
		return &rdp.CertError{Changed: true, HostPort: hostport, Fingerprint: fp, Pinned: changed.Pinned}
	} else if err != nil {
		return err
	}
	return nil
}
