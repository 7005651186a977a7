package wire

// OpGroupClose is op group_close's name on the wire.
const OpGroupClose = "group_close"

// groupCloseOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_group_close_gen.go).
func groupCloseOp() OpSpec {
	return OpSpec{Name: OpGroupClose, Answers: answers("group", "dispatched"), Caps: []string{"limbs.open"}, Fields: []Field{fld("groupId", required())}, Raises: codes(NotFound, LeaseRevoked),
		Answer: "`group` as it was, with each member's `state`; members already gone are fine. A member's limb that another group holds or another client attached stays open, and its `kept` says why"}
}
