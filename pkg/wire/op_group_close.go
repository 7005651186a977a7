package wire

// OpGroupClose is op group_close's name on the wire.
const OpGroupClose = "group_close"

// GroupCloseArgs are the arguments of op group_close.
type GroupCloseArgs struct {
	Envelope
	GroupID string `json:"groupId,omitempty" dvv:"required"`
}

// GroupCloseAnswer is what a success of op group_close carries.
type GroupCloseAnswer struct {
	Dispatched string `json:"dispatched,omitempty"`
	Group      *Group `json:"group,omitempty"`
}

// groupCloseOp is what a client needs to know of op group_close beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from GroupCloseArgs and
// GroupCloseAnswer (op_group_close_gen.go).
func groupCloseOp() OpSpec {
	return OpSpec{
		Name:   OpGroupClose,
		Caps:   []string{"limbs.open"},
		Raises: codes(NotFound, LeaseRevoked),
		Answer: "`group` as it was, with each member's `state`; members already gone are fine. A member's limb that another group holds or another client attached stays open, and its `kept` says why",
	}
}
