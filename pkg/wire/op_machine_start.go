package wire

// OpMachineStart is op machine_start's name on the wire.
const OpMachineStart = "machine_start"

// machineStartOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_start_gen.go).
func machineStartOp() OpSpec {
	return OpSpec{Name: OpMachineStart, Answers: answers("machine"), Limb: true, Caps: []string{"machine.control"},
		Fields: limbFields(),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once a shut-off machine was started (QMP: a QEMU still there, under -S or -no-shutdown)"}
}
