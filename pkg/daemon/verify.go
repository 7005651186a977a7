package daemon

import (
	"github.com/dvvhq/dvv/pkg/daemon/verify"
)

// startVerify begins watching before the act runs (pkg/daemon/verify);
// nil when the op is not an act. With verifyMs 0 the answer says only
// `dispatched`.
func (c *opCall) startVerify() *verify.Verifier {
	req := c.req
	if spec, ok := c.d.cfg.Ops.Spec(req.OpName); !ok || !spec.Dispatches || c.l == nil { // the acts
		return nil
	}
	switch {
	case c.l.dsk != nil:
		return verify.Desktop(req.OpName, req.gist(), c.l.dsk.motion)
	case c.l.tty != nil:
		return verify.Terminal(req.gist(), c.l.liveTerminal)
	}
	return nil
}
