package wire

// OpTokenList is op token_list's name on the wire.
const OpTokenList = "token_list"

// tokenListOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_token_list_gen.go).
func tokenListOp() OpSpec {
	return OpSpec{Name: OpTokenList, Answers: answers("tokens"), Inline: true, ReadOnly: true, Caps: []string{"tokens.admin"}, Raises: codes(Unsupported), Answer: "`tokens`"}
}
