package wire

// OpStatus is op status's name on the wire.
const OpStatus = "status"

// StatusArgs are the arguments of op status.
type StatusArgs struct {
	Envelope
	Target
}

// StatusAnswer is what a success of op status carries.
type StatusAnswer struct {
	LimbID      string       `json:"limbId,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
}

// statusOp is what a client needs to know of op status beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from StatusArgs and
// StatusAnswer (op_status_gen.go).
func statusOp() OpSpec {
	return OpSpec{
		Name:      OpStatus,
		Limb:      true,
		Inline:    true,
		ReadOnly:  true,
		RetrySafe: true,
		Answer:    "`observation` (`dvv.observation.v1`)",
	}
}
