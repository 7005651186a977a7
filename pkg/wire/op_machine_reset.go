package wire

// OpMachineReset is op machine_reset's name on the wire.
const OpMachineReset = "machine_reset"

// machineResetOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_reset_gen.go).
func machineResetOp() OpSpec {
	return OpSpec{Name: OpMachineReset, Answers: answers("machine", "observation"), Limb: true, Caps: []string{"machine.control"},
		Fields: limbFields(fld("timeoutMs", atLeast(0), note("how long to wait for the screen to come back; 20000, clamped to 60000"))),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` and `observation` once the machine was reset and the limb's screen reconnected: the geometry generation moved on and the typing fence is armed until the next read; leases are kept"}
}
