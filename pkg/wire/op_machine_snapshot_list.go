package wire

// OpMachineSnapshotList is op machine_snapshot_list's name on the wire.
const OpMachineSnapshotList = "machine_snapshot_list"

// MachineSnapshotListArgs are the arguments of op machine_snapshot_list.
type MachineSnapshotListArgs struct {
	Envelope
	Target
}

// MachineSnapshotListAnswer is what a success of op machine_snapshot_list carries.
type MachineSnapshotListAnswer struct {
	LimbID    string     `json:"limbId,omitempty"`
	Snapshots []Snapshot `json:"snapshots,omitzero"`
}

// machineSnapshotListOp is what a client needs to know of op machine_snapshot_list beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachineSnapshotListArgs and
// MachineSnapshotListAnswer (op_machine_snapshot_list_gen.go).
func machineSnapshotListOp() OpSpec {
	return OpSpec{
		Name:      OpMachineSnapshotList,
		Limb:      true,
		ReadOnly:  true,
		RetrySafe: true,
		Caps:      []string{"machine.control"},
		Raises:    codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed),
		Answer:    "`snapshots`: name, createdMs, memory, and the state it was taken in where the backend says",
	}
}
