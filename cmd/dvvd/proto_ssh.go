package main

import (
	sshlimb "github.com/dvvhq/dvv/pkg/limb/ssh"
	"github.com/dvvhq/dvv/pkg/wire"
)

func init() {
	terminalDialer = sshlimb.DialTerminal
	terminalPort = sshlimb.Port
	filesDialer = sshlimb.DialFiles
	machineSSH = sshlimb.DialUnix
	structure = sshlimb.DialStructure
	trusters[wire.ProtoSSH] = sshlimb.TrustHostKeyChecked
	hostKeyCheck = sshlimb.CheckHostKey
}
