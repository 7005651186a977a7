package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineState, typed(opMachineState))

func opMachineState(c *opCall, _ wire.MachineStateArgs) (*wire.MachineStateAnswer, error) {
	var st wire.MachineState
	err := c.withMachine(func(ctx context.Context, m machine.Machine) error {
		var err error
		st, err = m.State(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &wire.MachineStateAnswer{Machine: &st}, nil
}
