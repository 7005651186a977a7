package wire

// OpTokenNew is op token_create's name on the wire.
const OpTokenNew = "token_create"

// tokenCreateOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_token_create_gen.go).
func tokenCreateOp() OpSpec {
	return OpSpec{Name: OpTokenNew, NameMeans: "Label", Answers: answers("token", "tokens"), Caps: []string{"tokens.admin"}, Fields: []Field{fld("role"), fld("caps")}, // the label is the envelope's name
		Raises: codes(KeychainMissing, Unsupported), Answer: "`token` (shown once; labelled by `name`), `tokens`"}
}
