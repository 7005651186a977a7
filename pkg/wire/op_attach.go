package wire

// OpAttach is op attach's name on the wire.
const OpAttach = "attach"

// attachOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_attach_gen.go).
func attachOp() OpSpec {
	return OpSpec{Name: OpAttach, Answers: answers("daemon"), Answer: "as `hello`"}
}
