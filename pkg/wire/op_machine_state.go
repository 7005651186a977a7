package wire

// OpMachineState is op machine_state's name on the wire.
const OpMachineState = "machine_state"

// MachineStateArgs are the arguments of op machine_state.
type MachineStateArgs struct {
	Envelope
	Target
}

// MachineStateAnswer is what a success of op machine_state carries.
type MachineStateAnswer struct {
	LimbID  string        `json:"limbId,omitempty"`
	Machine *MachineState `json:"machine,omitempty"`
}

// machineStateOp is what a client needs to know of op machine_state beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachineStateArgs and
// MachineStateAnswer (op_machine_state_gen.go).
func machineStateOp() OpSpec {
	return OpSpec{
		Name:      OpMachineState,
		Limb:      true,
		ReadOnly:  true,
		RetrySafe: true,
		Caps:      []string{"machine.control"},
		Raises:    codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed),
		Answer:    "`machine`: state (running, paused, shutoff, suspended, crashed, other), `detail` in the hypervisor's own words, backend and the machine string",
	}
}
