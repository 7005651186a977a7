package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// splitAddress takes an open's address apart (hosts.ParseAddress): the
// user of user@host (SSH) becomes the target's user and a port written in
// the address its port, so "pat@build" is dialled as host "build" and
// never retried as a host named "pat@build". An address that cannot be
// a host is BAD_REQUEST here, before a limb exists.
func splitAddress(t *limb.Target) error {
	ep, err := hosts.ParseAddress(t.Protocol, t.Address)
	if err != nil {
		return err
	}
	if ep.URL != "" {
		return nil // ws:// and wss:// are dialled as written
	}
	if ep.Port != 0 {
		if t.Port != 0 && t.Port != ep.Port {
			return &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("port %d in the address conflicts with port %d", ep.Port, t.Port),
				Next: "give the port once: in the address (HOST:PORT) or as port"}
		}
		t.Port = ep.Port
	}
	t.Address, t.User = ep.Host, ep.User
	return nil
}

// LimbID is reproducible: the same machine (protocol, address, port) at the
// same slot gets the same id, after a reconnect or a daemon restart.
func LimbID(protocol, address string, port, slot int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%d|%d", protocol, strings.ToLower(address), port, slot)))
	return protocol + "-" + hex.EncodeToString(sum[:4])
}
