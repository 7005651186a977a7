package wire

// OpLimbs is op limbs's name on the wire.
const OpLimbs = "limbs"

// LimbsArgs are the arguments of op limbs.
type LimbsArgs struct {
	Envelope
}

// LimbsAnswer is what a success of op limbs carries.
type LimbsAnswer struct {
	Limbs     []LimbSummary `json:"limbs,omitzero"`
	Available []LimbSummary `json:"available,omitzero"`
}

// limbsOp is what a client needs to know of op limbs beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from LimbsArgs and
// LimbsAnswer (op_limbs_gen.go).
func limbsOp() OpSpec {
	return OpSpec{
		Name:      OpLimbs,
		Inline:    true,
		ReadOnly:  true,
		RetrySafe: true,
		Answer:    "`limbs`, `available`: id, protocol, address, port, slot, state, size, capabilities, lease",
	}
}
