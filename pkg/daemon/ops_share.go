package daemon

import (
	"fmt"

	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpShare, typed(opShare))

// opShare starts (or reports) a limb's share, or stops it.
func opShare(c *opCall, a wire.ShareArgs) (*wire.ShareAnswer, error) {
	l := c.l
	r := &wire.ShareAnswer{}
	switch a.Action {
	case "", "start":
	case "stop":
		if c.d.shares.stop(l) {
			r.Dispatched = "share stopped; every viewer was disconnected"
		} else {
			r.Dispatched = "limb was not shared"
		}
		return r, nil
	}
	if a.Port != nil && !a.TCP {
		return nil, wire.Errorf(wire.BadRequest, "port is the TCP listener's; add tcp (dvv share %s --tcp --port %d)", l.id, *a.Port)
	}
	sh, err := c.d.shares.start(l)
	if err != nil {
		return nil, err
	}
	r.Share = sh.view()
	r.Share.ViewOnly = a.ViewOnly
	if a.TCP {
		port := 0
		if a.Port != nil {
			port = *a.Port
		}
		addr, pw, exp, err := sh.startTCP(a.ViewOnly, port)
		if err != nil {
			return nil, err
		}
		r.Share.TCP, r.Share.Password, r.Share.ExpiresMs = addr, pw, exp.UnixMilli()
	}
	r.Dispatched = fmt.Sprintf("limb %s is shared over RFB", l.id)
	return r, nil
}
