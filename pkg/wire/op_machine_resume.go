package wire

// OpMachineResume is op machine_resume's name on the wire.
const OpMachineResume = "machine_resume"

// machineResumeOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_machine_resume_gen.go).
func machineResumeOp() OpSpec {
	return OpSpec{Name: OpMachineResume, Answers: answers("machine"), Limb: true, Caps: []string{"machine.control"},
		Fields: limbFields(),
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once it runs again (a suspended guest is woken)"}
}
