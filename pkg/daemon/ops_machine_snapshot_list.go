package daemon

import (
	"context"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineSnapshotList, typed(opMachineSnapshotList))

func opMachineSnapshotList(c *opCall, _ wire.MachineSnapshotListArgs) (*wire.MachineSnapshotListAnswer, error) {
	var list []wire.Snapshot
	err := c.withMachine(func(ctx context.Context, m machine.Machine) error {
		var err error
		list, err = m.Snapshots(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &wire.MachineSnapshotListAnswer{Snapshots: list}, nil
}
