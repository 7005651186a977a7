package wire

// OpMachinePower is op machine_power's name on the wire.
const OpMachinePower = "machine_power"

// machinePowerOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_power_gen.go).
func machinePowerOp() OpSpec {
	return OpSpec{Name: OpMachinePower, Answers: answers("machine"), Limb: true, Caps: []string{"machine.control"},
		Fields: limbFields(),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once the power button was pressed (ACPI): the guest decides whether to shut down, so the state may still be running"}
}
