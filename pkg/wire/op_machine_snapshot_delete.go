package wire

// OpMachineSnapshotDelete is op machine_snapshot_delete's name on the wire.
const OpMachineSnapshotDelete = "machine_snapshot_delete"

// MachineSnapshotDeleteArgs are the arguments of op machine_snapshot_delete.
type MachineSnapshotDeleteArgs struct {
	Envelope
	Target
	Snapshot string `json:"snapshot,omitempty" dvv:"required" need:"the snapshot's name"`
}

// MachineSnapshotDeleteAnswer is what a success of op machine_snapshot_delete carries.
type MachineSnapshotDeleteAnswer struct {
	LimbID    string     `json:"limbId,omitempty"`
	Snapshots []Snapshot `json:"snapshots,omitzero"`
}

// machineSnapshotDeleteOp is what a client needs to know of op machine_snapshot_delete beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachineSnapshotDeleteArgs and
// MachineSnapshotDeleteAnswer (op_machine_snapshot_delete_gen.go).
func machineSnapshotDeleteOp() OpSpec {
	return OpSpec{
		Name:   OpMachineSnapshotDelete,
		Limb:   true,
		Caps:   []string{"machine.control"},
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`snapshots`: those left",
	}
}
