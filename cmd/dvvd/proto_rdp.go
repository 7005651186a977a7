package main

import (
	"context"
	"net"
	"strconv"
	"time"

	"github.com/dvvhq/dvv/pkg/limb/pins"
	rdplimb "github.com/dvvhq/dvv/pkg/limb/rdp"
	"github.com/dvvhq/dvv/pkg/rdp"
	"github.com/dvvhq/dvv/pkg/wire"
)

func init() {
	desktopDialers[wire.ProtoRDP] = rdplimb.Dial
	trusters[wire.ProtoRDP] = trustRDP
}

// trustRDP pins an RDP server's certificate. Given a fingerprint (the one a
// HOSTKEY_UNKNOWN answer showed), it pins only when the server still
// presents exactly that certificate.
func trustRDP(address string, port int, fingerprint string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if fingerprint != "" {
		der, err := rdp.FetchCertificate(ctx, net.JoinHostPort(address, strconv.Itoa(port)))
		if err != nil {
			return "", wire.Errorf(wire.Unreachable, "fetch the certificate of %s:%d: %v", address, port, err)
		}
		if fp := rdp.Fingerprint(der); !pins.Same(fp, fingerprint) {
			return "", wire.Errorf(wire.HostKeyChanged, "the server presents %s, not the %s you checked; nothing was trusted", fp, fingerprint)
		}
	}
	return rdplimb.TrustCert(ctx, address, port)
}
