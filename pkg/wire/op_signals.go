package wire

// OpSignals is op signals's name on the wire.
const OpSignals = "signals"

// signalsOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_signals_gen.go).
func signalsOp() OpSpec {
	return OpSpec{Name: OpSignals, ListedOn: bothKinds, Answers: answers("signals"), Limb: true, Inline: true, ReadOnly: true, RetrySafe: true, Fields: selectorFields(), Answer: "`signals`"}
}
