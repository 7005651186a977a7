package wire

// OpPause is op pause's name on the wire.
const OpPause = "pause"

// pauseOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_pause_gen.go).
func pauseOp() OpSpec {
	return OpSpec{Name: OpPause, Answers: answers("paused", "dispatched"), Caps: []string{"takeover"}, Variant: "action", Variants: []string{"pause", "resume"},
		Fields: []Field{fld("action", required()), fld("limbId"), fld("groupId"), fld("member", atLeast(0)), fld("all", only("pause"), note("every limb, also limbs opened later"))},
		Raises: codes(LimbGone),
		Answer: "`paused`: all, limbs; pause needs a limb or `all`, resume without a limb resumes everything. A pause takes no lease away: an agent that held one and is still attached acts again after resume with no acquire"}
}
