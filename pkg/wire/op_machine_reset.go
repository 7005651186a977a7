package wire

// OpMachineReset is op machine_reset's name on the wire.
const OpMachineReset = "machine_reset"

// MachineResetArgs are the arguments of op machine_reset.
type MachineResetArgs struct {
	Envelope
	Target
	// note: how long to wait for the screen to come back; 20000, clamped to 60000
	TimeoutMs *int `json:"timeoutMs,omitempty" dvv:"min=0"`
}

// MachineResetAnswer is what a success of op machine_reset carries.
type MachineResetAnswer struct {
	LimbID      string        `json:"limbId,omitempty"`
	Observation *Observation  `json:"observation,omitempty"`
	Machine     *MachineState `json:"machine,omitempty"`
}

// machineResetOp is what a client needs to know of op machine_reset beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from MachineResetArgs and
// MachineResetAnswer (op_machine_reset_gen.go).
func machineResetOp() OpSpec {
	return OpSpec{
		Name:   OpMachineReset,
		Limb:   true,
		Caps:   []string{"machine.control"},
		Raises: codes(NoMachine, MachineRefused, NotFound, Unreachable, ProtocolError, PolicyDenied, Unsupported, Timeout, HostKeyUnknown, HostKeyChanged, AuthFailed, LeaseRevoked),
		Answer: "`machine` and `observation` once the machine was reset and the limb's screen reconnected: the geometry generation moved on and the typing fence is armed until the next read; leases are kept",
	}
}
