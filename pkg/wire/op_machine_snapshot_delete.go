package wire

// OpMachineSnapshotDelete is op machine_snapshot_delete's name on the wire.
const OpMachineSnapshotDelete = "machine_snapshot_delete"

// machineSnapshotDeleteOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_snapshot_delete_gen.go).
func machineSnapshotDeleteOp() OpSpec {
	return OpSpec{Name: OpMachineSnapshotDelete, Answers: answers("snapshots"), Limb: true, Caps: []string{"machine.control"},
		Fields: limbFields(fld("snapshot", required("the snapshot's name"))),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`snapshots`: those left"}
}
