package wire

// OpMachineSnapshotRestore is op machine_snapshot_restore's name on the wire.
const OpMachineSnapshotRestore = "machine_snapshot_restore"

// MachineSnapshotRestoreArgs are the arguments of op machine_snapshot_restore.
type MachineSnapshotRestoreArgs struct {
	Envelope
	Target
	Snapshot string `json:"snapshot,omitempty" dvv:"required" need:"the snapshot's name"`
	// note: how long to wait for the screen to come back; 20000, clamped to 60000
	TimeoutMs *int `json:"timeoutMs,omitempty" dvv:"min=0"`
}

// MachineSnapshotRestoreAnswer is what a success of op machine_snapshot_restore carries.
type MachineSnapshotRestoreAnswer struct {
	LimbID      string        `json:"limbId,omitempty"`
	Observation *Observation  `json:"observation,omitempty"`
	Machine     *MachineState `json:"machine,omitempty"`
}

// machineSnapshotRestoreOp is what a client needs to know of op machine_snapshot_restore beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachineSnapshotRestoreArgs and
// MachineSnapshotRestoreAnswer (op_machine_snapshot_restore_gen.go).
func machineSnapshotRestoreOp() OpSpec {
	return OpSpec{
		Name:   OpMachineSnapshotRestore,
		Limb:   true,
		Caps:   []string{"machine.control"},
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` and `observation` once the machine is back at the snapshot and the limb's screen reconnected: the geometry generation moved on, the typing fence is armed until the next read, leases are kept; acts in flight finish first and acts sent meanwhile wait for it",
	}
}
