package wire

// OpHello is op hello's name on the wire.
const OpHello = "hello"

// helloOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_hello_gen.go).
func helloOp() OpSpec {
	return OpSpec{Name: OpHello, Answers: answers("daemon"), Answer: "(takes the envelope: `name`, `token`, `session`, see Attachments) `daemon`: version, protocol, id, pid, attachment, role, caps"}
}
