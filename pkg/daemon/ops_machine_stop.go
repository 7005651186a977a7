package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineStop, typed(opMachineStop))

func opMachineStop(c *opCall, _ wire.MachineStopArgs) (*wire.MachineStopAnswer, error) {
	st, err := c.machineAct(wire.OpMachineStop, func(ctx context.Context, m machine.Machine) error { return m.Stop(ctx) })
	if err != nil {
		return nil, err
	}
	return &wire.MachineStopAnswer{Machine: st}, nil
}
