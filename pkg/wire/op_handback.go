package wire

// OpHandback is op handback's name on the wire.
const OpHandback = "handback"

// handbackOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_handback_gen.go).
func handbackOp() OpSpec {
	return OpSpec{Name: OpHandback, Answers: answers("lease", "dispatched"), Limb: true, Caps: []string{"takeover"}, Fields: selectorFields(),
		Answer: "`lease`; a person's hold (takeover, a shared VNC viewer, the browser viewer) ends"}
}
