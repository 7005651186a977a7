package main

import (
	"context"
	"net"
	"strconv"
	"time"

	"github.com/dvvhq/dvv/pkg/limb/vnc"
	"github.com/dvvhq/dvv/pkg/wire"
)

func init() {
	desktopDialers[wire.ProtoVNC] = vnc.Dial
	trusters[wire.ProtoVNC] = func(address string, port int, checked string, acceptNew bool) (string, bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		return vnc.TrustCertChecked(ctx, net.JoinHostPort(address, strconv.Itoa(port)), checked, acceptNew)
	}
}
