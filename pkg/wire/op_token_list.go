package wire

// OpTokenList is op token_list's name on the wire.
const OpTokenList = "token_list"

// TokenListArgs are the arguments of op token_list.
type TokenListArgs struct {
	Envelope
}

// TokenListAnswer is what a success of op token_list carries.
type TokenListAnswer struct {
	Tokens []TokenInfo `json:"tokens,omitzero"`
}

// tokenListOp is what a client needs to know of op token_list beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from TokenListArgs and
// TokenListAnswer (op_token_list_gen.go).
func tokenListOp() OpSpec {
	return OpSpec{
		Name:     OpTokenList,
		Inline:   true,
		ReadOnly: true,
		Caps:     []string{"tokens.admin"},
		Raises:   codes(Unsupported),
		Answer:   "`tokens`",
	}
}
