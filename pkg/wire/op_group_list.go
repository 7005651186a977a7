package wire

// OpGroupList is op group_list's name on the wire.
const OpGroupList = "group_list"

// GroupListArgs are the arguments of op group_list.
type GroupListArgs struct {
	Envelope
	GroupID string `json:"groupId,omitempty"`
}

// GroupListAnswer is what a success of op group_list carries.
type GroupListAnswer struct {
	Group  *Group  `json:"group,omitempty"`
	Groups []Group `json:"groups,omitzero"`
}

// groupListOp is what a client needs to know of op group_list beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from GroupListArgs and
// GroupListAnswer (op_group_list_gen.go).
func groupListOp() OpSpec {
	return OpSpec{
		Name:      OpGroupList,
		Inline:    true,
		ReadOnly:  true,
		RetrySafe: true,
		Raises:    codes(NotFound),
		Answer:    "`groups`, or one `group` with members",
	}
}
