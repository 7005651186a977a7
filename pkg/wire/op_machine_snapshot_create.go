package wire

// OpMachineSnapshotCreate is op machine_snapshot_create's name on the wire.
const OpMachineSnapshotCreate = "machine_snapshot_create"

// machineSnapshotCreateOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_snapshot_create_gen.go).
func machineSnapshotCreateOp() OpSpec {
	return OpSpec{Name: OpMachineSnapshotCreate, Answers: answers("snapshot", "machine"), Limb: true, Caps: []string{"machine.control"},
		Fields: limbFields(fld("snapshot", required("the snapshot's name"), note("letters, digits, ., _ and -; at most 64"))),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`snapshot` as taken (`memory`: whether it holds the running machine's memory), `machine`"}
}
