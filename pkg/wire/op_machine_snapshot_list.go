package wire

// OpMachineSnapshotList is op machine_snapshot_list's name on the wire.
const OpMachineSnapshotList = "machine_snapshot_list"

// machineSnapshotListOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_snapshot_list_gen.go).
func machineSnapshotListOp() OpSpec {
	return OpSpec{Name: OpMachineSnapshotList, Answers: answers("snapshots"), Limb: true, ReadOnly: true, RetrySafe: true, Caps: []string{"machine.control"},
		Fields: limbFields(),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed),
		Answer: "`snapshots`: name, createdMs, memory, and the state it was taken in where the backend says"}
}
