package wire

// OpStatus is op status's name on the wire.
const OpStatus = "status"

// statusOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_status_gen.go).
func statusOp() OpSpec {
	return OpSpec{Name: OpStatus, ListedOn: bothKinds, Answers: answers("observation"), Limb: true, Inline: true, ReadOnly: true, RetrySafe: true, Fields: selectorFields(),
		Answer: "`observation` (`dvv.observation.v1`)"}
}
