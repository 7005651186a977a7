package main

import (
	"context"

	sshlimb "github.com/dvvhq/dvv/pkg/limb/ssh"
	"github.com/dvvhq/dvv/pkg/sshx"
	"github.com/dvvhq/dvv/pkg/wire"
)

func init() {
	terminalDialer = sshlimb.DialTerminal
	terminalPort = sshlimb.Port
	filesDialer = sshlimb.DialFiles
	trusters[wire.ProtoSSH] = sshlimb.TrustHostKeyChecked
	hostKeyCheck = func(ctx context.Context, address string, port int, user string) (string, error) {
		return sshx.CheckTrust(ctx, sshx.Options{Address: address, Port: port, User: user})
	}
}
