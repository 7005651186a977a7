package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachinePower, typed(opMachinePower))

func opMachinePower(c *opCall, _ wire.MachinePowerArgs) (*wire.MachinePowerAnswer, error) {
	st, err := c.machineAct(wire.OpMachinePower, func(ctx context.Context, m machine.Machine) error { return m.Power(ctx) })
	if err != nil {
		return nil, err
	}
	return &wire.MachinePowerAnswer{Machine: st}, nil
}
