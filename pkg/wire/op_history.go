package wire

// OpHistory is op history's name on the wire.
const OpHistory = "history"

// historyOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_history_gen.go).
func historyOp() OpSpec {
	return OpSpec{Name: OpHistory, Answers: answers("history"), Limb: true, Unlogged: true, Inline: true, ReadOnly: true, RetrySafe: true, Caps: []string{"history.read"}, Fields: selectorFields(),
		Answer: "`history`: the limb's last 128 ops — op, attachment, outcome code, timings; never text, pixels or secrets"}
}
