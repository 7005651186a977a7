package wire

// OpClose is op close's name on the wire.
const OpClose = "close"

// CloseArgs are the arguments of op close.
type CloseArgs struct {
	Envelope
	LimbID string `json:"limbId,omitempty" dvv:"required"`
}

// CloseAnswer is what a success of op close carries.
type CloseAnswer struct {
	LimbID     string `json:"limbId,omitempty"`
	Dispatched string `json:"dispatched,omitempty"`
}

// closeOp is what a client needs to know of op close beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from CloseArgs and
// CloseAnswer (op_close_gen.go).
func closeOp() OpSpec {
	return OpSpec{
		Name:   OpClose,
		Limb:   true,
		Caps:   []string{"limbs.open"},
		Raises: codes(LeaseRevoked),
		Answer: "`close`; idempotent (a gone limb is success); in-flight intents withdrawn first; `LEASE_REVOKED` while a person holds the limb",
	}
}
