package wire

// OpMachineSnapshotRestore is op machine_snapshot_restore's name on the wire.
const OpMachineSnapshotRestore = "machine_snapshot_restore"

// machineSnapshotRestoreOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_snapshot_restore_gen.go).
func machineSnapshotRestoreOp() OpSpec {
	return OpSpec{Name: OpMachineSnapshotRestore, Answers: answers("machine", "observation"), Limb: true, Caps: []string{"machine.control"},
		Fields: limbFields(fld("snapshot", required("the snapshot's name")), fld("timeoutMs", atLeast(0), note("how long to wait for the screen to come back; 20000, clamped to 60000"))),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` and `observation` once the machine is back at the snapshot and the limb's screen reconnected: the geometry generation moved on, the typing fence is armed until the next read, leases are kept; acts in flight finish first and acts sent meanwhile wait for it"}
}
