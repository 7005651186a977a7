package wire

// OpTokenRevok is op token_revoke's name on the wire.
const OpTokenRevok = "token_revoke"

// tokenRevokeOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_token_revoke_gen.go).
func tokenRevokeOp() OpSpec {
	return OpSpec{Name: OpTokenRevok, Answers: answers(), Caps: []string{"tokens.admin"}, Fields: []Field{fld("tokenId", required())}, Raises: codes(NotFound, Unsupported),
		Answer: "`token_revoke`"}
}
