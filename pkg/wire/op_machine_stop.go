package wire

// OpMachineStop is op machine_stop's name on the wire.
const OpMachineStop = "machine_stop"

// machineStopOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_stop_gen.go).
func machineStopOp() OpSpec {
	return OpSpec{Name: OpMachineStop, Answers: answers("machine"), Limb: true, Caps: []string{"machine.control"},
		Fields: limbFields(),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once the power was cut (libvirt destroys the domain; QMP ends QEMU, which nothing starts again)"}
}
