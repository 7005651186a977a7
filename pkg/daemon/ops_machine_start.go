package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineStart, typed(opMachineStart))

func opMachineStart(c *call, _ wire.MachineStartArgs) (*wire.MachineStartAnswer, error) {
	st, err := c.machineAct(wire.OpMachineStart, func(ctx context.Context, m machine.Machine) error { return m.Start(ctx) })
	if err != nil {
		return nil, err
	}
	return &wire.MachineStartAnswer{Machine: st}, nil
}
