package wire

// OpTokenRevok is op token_revoke's name on the wire.
const OpTokenRevok = "token_revoke"

// TokenRevokeArgs are the arguments of op token_revoke.
type TokenRevokeArgs struct {
	Envelope
	TokenID string `json:"tokenId,omitempty" dvv:"required"`
}

// TokenRevokeAnswer is what a success of op token_revoke carries.
type TokenRevokeAnswer struct{}

// tokenRevokeOp is what a client needs to know of op token_revoke beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from TokenRevokeArgs and
// TokenRevokeAnswer (op_token_revoke_gen.go).
func tokenRevokeOp() OpSpec {
	return OpSpec{
		Name:   OpTokenRevok,
		Caps:   []string{"tokens.admin"},
		Raises: codes(NotFound, Unsupported),
		Answer: "`token_revoke`",
	}
}
