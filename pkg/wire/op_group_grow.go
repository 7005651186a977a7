package wire

// OpGroupGrow is op group_grow's name on the wire.
const OpGroupGrow = "group_grow"

// groupGrowOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_group_grow_gen.go).
func groupGrowOp() OpSpec {
	return OpSpec{Name: OpGroupGrow, Answers: answers("group"), Caps: []string{"limbs.open"},
		Fields: []Field{fld("groupId", required()), fld("hostIds"), fld("addresses"), fld("protocol"), fld("perceive")},
		Raises: codes(NotFound, Unreachable, AuthFailed, Timeout, SlotRefused, HostKeyUnknown, HostKeyChanged, ProtocolError, Unsupported, KeychainMissing),
		Answer: "`group`"}
}
