package wire

// OpGroupGrow is op group_grow's name on the wire.
const OpGroupGrow = "group_grow"

// GroupGrowArgs are the arguments of op group_grow.
type GroupGrowArgs struct {
	Envelope
	GroupID  string `json:"groupId,omitempty" dvv:"required"`
	Protocol string `json:"protocol,omitempty"`
	// Keep a framebuffer mirror for the new members.
	Perceive *bool `json:"perceive,omitempty"`
	// Saved machines to add.
	HostIDs []string `json:"hostIds,omitempty"`
	// Endpoints to add.
	Addresses []string `json:"addresses,omitempty"`
}

// GroupGrowAnswer is what a success of op group_grow carries.
type GroupGrowAnswer struct {
	Group *Group `json:"group,omitempty"`
}

// groupGrowOp is what a client needs to know of op group_grow beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from GroupGrowArgs and
// GroupGrowAnswer (op_group_grow_gen.go).
func groupGrowOp() OpSpec {
	return OpSpec{
		Name:   OpGroupGrow,
		Caps:   []string{"limbs.open"},
		Raises: codes(NotFound, Unreachable, AuthFailed, Timeout, SlotRefused, HostKeyUnknown, HostKeyChanged, ProtocolError, Unsupported, KeychainMissing),
		Answer: "`group`",
	}
}
