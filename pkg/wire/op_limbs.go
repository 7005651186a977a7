package wire

// OpLimbs is op limbs's name on the wire.
const OpLimbs = "limbs"

// limbsOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_limbs_gen.go).
func limbsOp() OpSpec {
	return OpSpec{Name: OpLimbs, Answers: answers("limbs", "available"), Inline: true, ReadOnly: true, RetrySafe: true,
		Answer: "`limbs`, `available`: id, protocol, address, port, slot, state, size, capabilities, lease"}
}
