package wire

// OpTokenNew is op token_create's name on the wire.
const OpTokenNew = "token_create"

// TokenCreateArgs are the arguments of op token_create; the envelope's Name
// is the new token's label.
type TokenCreateArgs struct {
	Envelope
	Role string   `json:"role,omitempty"`
	Caps []string `json:"caps,omitempty"`
}

// TokenCreateAnswer is what a success of op token_create carries.
type TokenCreateAnswer struct {
	Token  string      `json:"token,omitempty"`
	Tokens []TokenInfo `json:"tokens,omitzero"`
}

// tokenCreateOp is what a client needs to know of op token_create beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from TokenCreateArgs and
// TokenCreateAnswer (op_token_create_gen.go).
func tokenCreateOp() OpSpec {
	return OpSpec{
		Name:   OpTokenNew,
		Caps:   []string{"tokens.admin"},
		Raises: codes(KeychainMissing, Unsupported),
		Answer: "`token` (shown once; labelled by `name`), `tokens`",
	}
}
