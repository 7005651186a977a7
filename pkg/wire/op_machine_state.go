package wire

// OpMachineState is op machine_state's name on the wire.
const OpMachineState = "machine_state"

// machineStateOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_state_gen.go).
func machineStateOp() OpSpec {
	return OpSpec{Name: OpMachineState, Answers: answers("machine"), Limb: true, ReadOnly: true, RetrySafe: true, Caps: []string{"machine.control"},
		Fields: limbFields(),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed),
		Answer: "`machine`: state (running, paused, shutoff, suspended, crashed, other), `detail` in the hypervisor's own words, backend and the machine string"}
}
