package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineResume, typed(opMachineResume))

func opMachineResume(c *opCall, _ wire.MachineResumeArgs) (*wire.MachineResumeAnswer, error) {
	st, err := c.machineAct(wire.OpMachineResume, func(ctx context.Context, m machine.Machine) error { return m.Resume(ctx) })
	if err != nil {
		return nil, err
	}
	return &wire.MachineResumeAnswer{Machine: st}, nil
}
