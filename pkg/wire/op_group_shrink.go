package wire

// OpGroupShrnk is op group_shrink's name on the wire.
const OpGroupShrnk = "group_shrink"

// GroupShrinkArgs are the arguments of op group_shrink.
type GroupShrinkArgs struct {
	Envelope
	GroupID string `json:"groupId,omitempty" dvv:"required"`
	// How many of the most recently added members to close.
	N int `json:"n,omitempty" dvv:"required,min=1" need:"how many of the most recent members to close"`
}

// GroupShrinkAnswer is what a success of op group_shrink carries.
type GroupShrinkAnswer struct {
	Dispatched string `json:"dispatched,omitempty"`
	Group      *Group `json:"group,omitempty"`
}

// groupShrinkOp is what a client needs to know of op group_shrink beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from GroupShrinkArgs and
// GroupShrinkAnswer (op_group_shrink_gen.go).
func groupShrinkOp() OpSpec {
	return OpSpec{
		Name:   OpGroupShrnk,
		Caps:   []string{"limbs.open"},
		Raises: codes(NotFound, LeaseRevoked),
		Answer: "`group`; n larger than the group is `BAD_REQUEST` (never clamped); a removed member still in use elsewhere stays open (`dispatched` says which and why)",
	}
}
