package wire

// OpShutdown is op shutdown's name on the wire.
const OpShutdown = "shutdown"

// shutdownOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_shutdown_gen.go).
func shutdownOp() OpSpec {
	return OpSpec{Name: OpShutdown, Answers: answers(), Caps: []string{"daemon.admin"}, Answer: "dvvd stops"}
}
