package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineReset, typed(opMachineReset))

// opMachineReset resets the machine; the limb's screen is renewed as after
// a restore (machineRenew).
func opMachineReset(c *opCall, a wire.MachineResetArgs) (*wire.MachineResetAnswer, error) {
	st, o, err := c.machineRenew(wire.OpMachineReset, "reset", "", a.TimeoutMs, func(ctx context.Context, m machine.Machine) error { return m.Reset(ctx) })
	if err != nil {
		return nil, err
	}
	return &wire.MachineResetAnswer{Machine: st, Observation: o}, nil
}
