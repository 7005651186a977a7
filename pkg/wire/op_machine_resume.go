package wire

// OpMachineResume is op machine_resume's name on the wire.
const OpMachineResume = "machine_resume"

// MachineResumeArgs are the arguments of op machine_resume.
type MachineResumeArgs struct {
	Envelope
	Target
}

// MachineResumeAnswer is what a success of op machine_resume carries.
type MachineResumeAnswer struct {
	LimbID  string        `json:"limbId,omitempty"`
	Machine *MachineState `json:"machine,omitempty"`
}

// machineResumeOp is what a client needs to know of op machine_resume beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachineResumeArgs and
// MachineResumeAnswer (op_machine_resume_gen.go).
func machineResumeOp() OpSpec {
	return OpSpec{
		Name:   OpMachineResume,
		Limb:   true,
		Caps:   []string{"machine.control"},
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once it runs again (a suspended guest is woken)",
	}
}
