package main

import (
	"github.com/dvvhq/dvv/pkg/limb/vnc"
	"github.com/dvvhq/dvv/pkg/wire"
)

func init() {
	desktopDialers[wire.ProtoVNC] = vnc.Dial
	trusters[wire.ProtoVNC] = pinCert
}
