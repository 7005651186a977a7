package wire

// OpGroupOpen is op group_open's name on the wire.
const OpGroupOpen = "group_open"

// GroupOpenArgs are the arguments of op group_open.
type GroupOpenArgs struct {
	Envelope
	// Needed with addresses.
	// note: needed with addresses
	Protocol string `json:"protocol,omitempty"`
	// Keep a framebuffer mirror for every member.
	Perceive *bool `json:"perceive,omitempty"`
	// Saved machines, from dvv_hosts.
	HostIDs []string `json:"hostIds,omitempty"`
	// Endpoints of machines that are not saved (host or host:port).
	// note: host:port
	Addresses []string `json:"addresses,omitempty"`
}

// GroupOpenAnswer is what a success of op group_open carries.
type GroupOpenAnswer struct {
	Group *Group `json:"group,omitempty"`
}

// groupOpenOp is what a client needs to know of op group_open beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from GroupOpenArgs and
// GroupOpenAnswer (op_group_open_gen.go).
func groupOpenOp() OpSpec {
	return OpSpec{
		Name:   OpGroupOpen,
		Caps:   []string{"limbs.open"},
		Raises: codes(NotFound, Unreachable, AuthFailed, Timeout, SlotRefused, HostKeyUnknown, HostKeyChanged, ProtocolError, Unsupported, KeychainMissing),
		Answer: "`group`; waits for every member's first connection; any failure closes what the call opened and names the member",
	}
}
