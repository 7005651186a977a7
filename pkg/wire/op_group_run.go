package wire

// OpGroupRun is op group_run's name on the wire.
const OpGroupRun = "group_run"

// groupRunOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_group_run_gen.go).
//
// group_run needs what its inner action needs (policy.RequiredFor).
func groupRunOp() OpSpec {
	return OpSpec{Name: OpGroupRun, Answers: answers("members"), FansOut: true, Variant: "action", Variants: []string{"wait", "screen", "status", "signals", "type", "key", "click", "run"},
		Fields: []Field{fld("groupId", required()), fld("action", required()), fld("arguments", note("the tool's arguments minus the selector")), fld("outDir", only("screen"), localPath())},
		Raises: codes(NotFound),
		Answer: "`members`: index, limbId, response — each member's own answer or error"}
}
