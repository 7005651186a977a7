package wire

// OpGroupShrnk is op group_shrink's name on the wire.
const OpGroupShrnk = "group_shrink"

// groupShrinkOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_group_shrink_gen.go).
func groupShrinkOp() OpSpec {
	return OpSpec{Name: OpGroupShrnk, Answers: answers("group", "dispatched"), Caps: []string{"limbs.open"}, Fields: []Field{fld("groupId", required()), fld("n", atLeast(1), required("how many of the most recent members to close"))}, Raises: codes(NotFound, LeaseRevoked),
		Answer: "`group`; n larger than the group is `BAD_REQUEST` (never clamped); a removed member still in use elsewhere stays open (`dispatched` says which and why)"}
}
