package wire

// OpMachinePower is op machine_power's name on the wire.
const OpMachinePower = "machine_power"

// MachinePowerArgs are the arguments of op machine_power.
type MachinePowerArgs struct {
	Envelope
	Target
}

// MachinePowerAnswer is what a success of op machine_power carries.
type MachinePowerAnswer struct {
	LimbID  string        `json:"limbId,omitempty"`
	Machine *MachineState `json:"machine,omitempty"`
}

// machinePowerOp is what a client needs to know of op machine_power beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachinePowerArgs and
// MachinePowerAnswer (op_machine_power_gen.go).
func machinePowerOp() OpSpec {
	return OpSpec{
		Name:   OpMachinePower,
		Limb:   true,
		Caps:   []string{"machine.control"},
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` once the power button was pressed (ACPI): the guest decides whether to shut down, so the state may still be running",
	}
}
