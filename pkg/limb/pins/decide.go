package pins

import (
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Matches reports whether the fingerprint a user checked is the one a
// server presents. SSH fingerprints ("SHA256:" and unpadded base64) are
// case-sensitive and compared exactly (a trailing "=" is ignored); TLS
// fingerprints (hex, with or without colons) as Same does.
func Matches(checked, presented string) bool {
	if b64, ok := strings.CutPrefix(presented, "SHA256:"); ok && !isHex(b64) {
		return strings.TrimRight(strings.TrimPrefix(checked, "SHA256:"), "=") == strings.TrimRight(b64, "=")
	}
	return Same(checked, presented)
}

func isHex(s string) bool {
	s = strings.ReplaceAll(s, ":", "")
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return len(s) == 64
}

// TrustCommand is the exact command that trusts a key with the fingerprint
// the user checked: `dvv hosts trust HOST:PORT [--protocol P] --fingerprint FP`.
func TrustCommand(hostport, protocol, fingerprint string) string {
	cmd := "dvv hosts trust " + hostport
	if protocol != "" && protocol != wire.ProtoSSH {
		cmd += " --protocol " + protocol
	}
	return cmd + " --fingerprint " + fingerprint
}

// Unknown is HOSTKEY_UNKNOWN for a key or certificate nobody trusted yet:
// what presents which fingerprint, and the command that trusts exactly it.
// what is e.g. "the SSH host key of 10.0.0.5:22".
func Unknown(what, hostport, protocol, fingerprint string) *wire.Error {
	cmd := TrustCommand(hostport, protocol, fingerprint)
	return &wire.Error{Code: wire.HostKeyUnknown, Fingerprint: fingerprint,
		Message: what + " is not trusted yet: it presents " + fingerprint + ". Nothing was written.",
		Next: "Check that fingerprint with the machine's owner (on the machine itself, not over this connection); " +
			"if it is the same, run `" + cmd + "`"}
}

// Mismatch is the refusal of `hosts trust --fingerprint` when the server
// presents another key: HOSTKEY_CHANGED, nothing written.
func Mismatch(what, hostport, protocol, checked, presented string) *wire.Error {
	return &wire.Error{Code: wire.HostKeyChanged, Fingerprint: presented,
		Message: what + " is " + presented + ", not the " + checked + " you gave; nothing was trusted or written. " +
			"Someone may be intercepting the connection, or the fingerprint was copied wrong.",
		Next: "Do not trust this key. Compare the fingerprint again with the machine's owner (on the machine: " +
			"ssh-keygen -lf for an SSH host key, openssl x509 -noout -fingerprint -sha256 for a certificate); " +
			"then run `" + TrustCommand(hostport, protocol, "FINGERPRINT") + "` with the one read there"}
}

// Decide is what `hosts trust` does with a key the server presents and
// nothing recorded yet: nil to write it (it is the fingerprint the user
// checked, or acceptNew was asked for), else the coded refusal.
func Decide(what, hostport, protocol, presented, checked string, acceptNew bool) error {
	switch {
	case checked != "" && !Matches(checked, presented):
		return Mismatch(what, hostport, protocol, checked, presented)
	case checked == "" && !acceptNew:
		e := Unknown(what, hostport, protocol, presented)
		e.Message += " hosts trust writes a key only when given the fingerprint you checked (--fingerprint) or told to accept a new one (--accept-new)."
		return e
	}
	return nil
}
