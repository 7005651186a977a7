package wire

// OpMachinePause is op machine_pause's name on the wire.
const OpMachinePause = "machine_pause"

// MachinePauseArgs are the arguments of op machine_pause.
type MachinePauseArgs struct {
	Envelope
	Target
}

// MachinePauseAnswer is what a success of op machine_pause carries.
type MachinePauseAnswer struct {
	LimbID  string        `json:"limbId,omitempty"`
	Machine *MachineState `json:"machine,omitempty"`
}

// machinePauseOp is what a client needs to know of op machine_pause beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachinePauseArgs and
// MachinePauseAnswer (op_machine_pause_gen.go).
func machinePauseOp() OpSpec {
	return OpSpec{
		Name:   OpMachinePause,
		Limb:   true,
		Caps:   []string{"machine.control"},
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once the hypervisor paused the machine: its screen stands still until resume",
	}
}
