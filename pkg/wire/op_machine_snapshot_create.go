package wire

// OpMachineSnapshotCreate is op machine_snapshot_create's name on the wire.
const OpMachineSnapshotCreate = "machine_snapshot_create"

// MachineSnapshotCreateArgs are the arguments of op machine_snapshot_create.
type MachineSnapshotCreateArgs struct {
	Envelope
	Target
	// note: letters, digits, ., _ and -; at most 64
	Snapshot string `json:"snapshot,omitempty" dvv:"required" need:"the snapshot's name"`
}

// MachineSnapshotCreateAnswer is what a success of op machine_snapshot_create carries.
type MachineSnapshotCreateAnswer struct {
	LimbID   string        `json:"limbId,omitempty"`
	Machine  *MachineState `json:"machine,omitempty"`
	Snapshot *Snapshot     `json:"snapshot,omitempty"`
}

// machineSnapshotCreateOp is what a client needs to know of op machine_snapshot_create beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachineSnapshotCreateArgs and
// MachineSnapshotCreateAnswer (op_machine_snapshot_create_gen.go).
func machineSnapshotCreateOp() OpSpec {
	return OpSpec{
		Name:   OpMachineSnapshotCreate,
		Limb:   true,
		Caps:   []string{"machine.control"},
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`snapshot` as taken (`memory`: whether it holds the running machine's memory), `machine`",
	}
}
