package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachinePause, typed(opMachinePause))

func opMachinePause(c *opCall, _ wire.MachinePauseArgs) (*wire.MachinePauseAnswer, error) {
	st, err := c.machineAct(wire.OpMachinePause, func(ctx context.Context, m machine.Machine) error { return m.Pause(ctx) })
	if err != nil {
		return nil, err
	}
	return &wire.MachinePauseAnswer{Machine: st}, nil
}
