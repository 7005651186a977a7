package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineStart, typed(opMachineStart))

func opMachineStart(c *opCall, _ wire.MachineStartArgs) (*wire.MachineStartAnswer, error) {
	st, err := c.machineAct(wire.OpMachineStart, func(ctx context.Context, m machine.Machine) error { return m.Start(ctx) })
	if err != nil {
		return nil, err
	}
	// A limb whose screen went with the machine is between dials, maybe
	// backing off for seconds: it dials now, as the machine comes up.
	if l := c.l; l.stateName() != wire.StateConnected {
		l.requestRedial()
	}
	return &wire.MachineStartAnswer{Machine: st}, nil
}
