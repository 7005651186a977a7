package main

import "github.com/dvvhq/dvv/pkg/limb/vnc"

func init() {
	desktopDialers["vnc"] = vnc.Dial
	trusters["vnc"] = pinCert
}
