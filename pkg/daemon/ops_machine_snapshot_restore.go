package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineSnapshotRestore, typed(opMachineSnapshotRestore))

// opMachineSnapshotRestore puts the machine back at a snapshot and renews
// the limb's screen (machineRenew).
func opMachineSnapshotRestore(c *opCall, a wire.MachineSnapshotRestoreArgs) (*wire.MachineSnapshotRestoreAnswer, error) {
	if err := machine.CheckSnapshotName(a.Snapshot); err != nil {
		return nil, err
	}
	st, o, err := c.machineRenew(wire.OpMachineSnapshotRestore, "restore", a.Snapshot, a.TimeoutMs, func(ctx context.Context, m machine.Machine) error {
		return m.SnapshotRestore(ctx, a.Snapshot)
	})
	if err != nil {
		return nil, err
	}
	return &wire.MachineSnapshotRestoreAnswer{Machine: st, Observation: o}, nil
}
