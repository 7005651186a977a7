package wire

// OpTermRead is op term_read's name on the wire.
const OpTermRead = "term_read"

// termReadOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_term_read_gen.go).
func termReadOp() OpSpec {
	return OpSpec{Name: OpTermRead, ListedOn: terminals, Answers: answers("term"), Limb: true, Kind: KindTerminal, Caps: []string{"screen.read"}, ReadOnly: true, RetrySafe: true, Fields: limbFields(fld("since")),
		Raises: codes(NotImplemented, CursorExpired, WrongProtocol),
		Answer: "`term`: data (or dataBase64), cursor; `CURSOR_EXPIRED` when the ring overwrote the cursor"}
}
