package wire

// OpGroupList is op group_list's name on the wire.
const OpGroupList = "group_list"

// groupListOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_group_list_gen.go).
func groupListOp() OpSpec {
	return OpSpec{Name: OpGroupList, Answers: answers("group", "groups"), Inline: true, ReadOnly: true, RetrySafe: true, Fields: []Field{fld("groupId")}, Raises: codes(NotFound),
		Answer: "`groups`, or one `group` with members"}
}
