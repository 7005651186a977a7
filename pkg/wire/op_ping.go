package wire

// OpPing is op ping's name on the wire.
const OpPing = "ping"

// pingOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_ping_gen.go).
func pingOp() OpSpec {
	return OpSpec{Name: OpPing, Answers: answers(), NoAttach: true, Inline: true, ReadOnly: true, RetrySafe: true, Answer: "`ping`"}
}
