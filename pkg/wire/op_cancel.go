package wire

// OpCancel is op cancel's name on the wire.
const OpCancel = "cancel"

// cancelOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_cancel_gen.go).
func cancelOp() OpSpec {
	return OpSpec{Name: OpCancel, Answers: answers("dispatched"), NoAttach: true, Inline: true, Fields: []Field{fld("cancels", required("the id of a request sent on this connection"))},
		Answer: "`dispatched`: whether a request with that id was in flight; its work stops and it is answered as the work ends"}
}
