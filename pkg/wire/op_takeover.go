package wire

// OpTakeover is op takeover's name on the wire.
const OpTakeover = "takeover"

// takeoverOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_takeover_gen.go).
func takeoverOp() OpSpec {
	return OpSpec{Name: OpTakeover, Answers: answers("lease", "observation", "dispatched"), Limb: true, Recorded: true, Caps: []string{"takeover"}, Fields: limbFields(fld("reason", label(MaxReasonBytes))),
		Answer: "a person takes the lease at once"}
}
