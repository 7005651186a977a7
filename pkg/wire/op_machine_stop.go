package wire

// OpMachineStop is op machine_stop's name on the wire.
const OpMachineStop = "machine_stop"

// MachineStopArgs are the arguments of op machine_stop.
type MachineStopArgs struct {
	Envelope
	Target
}

// MachineStopAnswer is what a success of op machine_stop carries.
type MachineStopAnswer struct {
	LimbID  string        `json:"limbId,omitempty"`
	Machine *MachineState `json:"machine,omitempty"`
}

// machineStopOp is what a client needs to know of op machine_stop beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachineStopArgs and
// MachineStopAnswer (op_machine_stop_gen.go).
func machineStopOp() OpSpec {
	return OpSpec{
		Name:   OpMachineStop,
		Limb:   true,
		Caps:   []string{"machine.control"},
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once the power was cut (libvirt destroys the domain; QMP ends QEMU, which nothing starts again)",
	}
}
