package vnc

import "github.com/dvvhq/dvv/pkg/limb/pins"

// TrustCert pins a VNC server's certificate fingerprint (as shown in a
// HOSTKEY_UNKNOWN message) for hostport, as dvvd's host trust does.
func TrustCert(hostport, fingerprint string) error { return pins.Trust(hostport, fingerprint) }
