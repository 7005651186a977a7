package wire

// OpMachinePause is op machine_pause's name on the wire.
const OpMachinePause = "machine_pause"

// machinePauseOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_pause_gen.go).
func machinePauseOp() OpSpec {
	return OpSpec{Name: OpMachinePause, Answers: answers("machine"), Limb: true, Caps: []string{"machine.control"},
		Fields: limbFields(),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once the hypervisor paused the machine: its screen stands still until resume"}
}
