package daemon

import (
	"context"
	"time"

	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpMachineSnapshotCreate, typed(opMachineSnapshotCreate))

func opMachineSnapshotCreate(c *opCall, a wire.MachineSnapshotCreateArgs) (*wire.MachineSnapshotCreateAnswer, error) {
	if err := machine.CheckSnapshotName(a.Snapshot); err != nil {
		return nil, err
	}
	snap := &wire.Snapshot{Name: a.Snapshot}
	st, err := c.machineAct(wire.OpMachineSnapshotCreate, func(ctx context.Context, m machine.Machine) error {
		mem, err := m.SnapshotCreate(ctx, a.Snapshot)
		snap.Memory, snap.CreatedMs = mem, time.Now().UnixMilli()
		return err
	})
	if err != nil {
		return nil, err
	}
	return &wire.MachineSnapshotCreateAnswer{Snapshot: snap, Machine: st}, nil
}
