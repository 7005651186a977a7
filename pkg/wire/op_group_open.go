package wire

// OpGroupOpen is op group_open's name on the wire.
const OpGroupOpen = "group_open"

// groupOpenOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_group_open_gen.go).
func groupOpenOp() OpSpec {
	return OpSpec{Name: OpGroupOpen, Answers: answers("group"), Caps: []string{"limbs.open"},
		Fields: []Field{fld("hostIds"), fld("addresses", note("host:port")), fld("protocol", note("needed with addresses")), fld("perceive")},
		Raises: codes(NotFound, Unreachable, AuthFailed, Timeout, SlotRefused, HostKeyUnknown, HostKeyChanged, ProtocolError, Unsupported, KeychainMissing),
		Answer: "`group`; waits for every member's first connection; any failure closes what the call opened and names the member"}
}
