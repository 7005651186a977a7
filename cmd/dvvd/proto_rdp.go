package main

import (
	"context"
	"time"

	rdplimb "github.com/dvvhq/dvv/pkg/limb/rdp"
	"github.com/dvvhq/dvv/pkg/wire"
)

func init() {
	desktopDialers[wire.ProtoRDP] = rdplimb.Dial
	trusters[wire.ProtoRDP] = trustRDP
}

// trustRDP pins an RDP server's certificate when it is the one the user
// checked (or acceptNew allows a new one).
func trustRDP(address string, port int, checked string, acceptNew bool) (string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return rdplimb.TrustCertChecked(ctx, address, port, checked, acceptNew)
}
