package wire

// OpMachineStart is op machine_start's name on the wire.
const OpMachineStart = "machine_start"

// MachineStartArgs are the arguments of op machine_start.
type MachineStartArgs struct {
	Envelope
	Target
}

// MachineStartAnswer is what a success of op machine_start carries.
type MachineStartAnswer struct {
	LimbID  string        `json:"limbId,omitempty"`
	Machine *MachineState `json:"machine,omitempty"`
}

// machineStartOp is what a client needs to know of op machine_start beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachineStartArgs and
// MachineStartAnswer (op_machine_start_gen.go).
func machineStartOp() OpSpec {
	return OpSpec{
		Name:   OpMachineStart,
		Limb:   true,
		Caps:   []string{"machine.control"},
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once a shut-off machine was started (QMP: a QEMU still there, under -S or -no-shutdown)",
	}
}
