package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineSnapshotDelete, typed(opMachineSnapshotDelete))

func opMachineSnapshotDelete(c *opCall, a wire.MachineSnapshotDeleteArgs) (*wire.MachineSnapshotDeleteAnswer, error) {
	if err := machine.CheckSnapshotName(a.Snapshot); err != nil {
		return nil, err
	}
	if err := c.l.checkPersonHold(c.att, wire.OpMachineSnapshotDelete); err != nil {
		return nil, err
	}
	var list []wire.Snapshot
	err := c.withMachine(func(ctx context.Context, m machine.Machine) error {
		if err := m.SnapshotDelete(ctx, a.Snapshot); err != nil {
			return err
		}
		var err error
		list, err = m.Snapshots(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &wire.MachineSnapshotDeleteAnswer{Snapshots: list}, nil
}
