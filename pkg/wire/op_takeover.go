package wire

// OpTakeover is op takeover's name on the wire.
const OpTakeover = "takeover"

// TakeoverArgs are the arguments of op takeover.
type TakeoverArgs struct {
	Envelope
	Target
	Reason string `json:"reason,omitempty" dvv:"label=256"`
}

// TakeoverAnswer is what a success of op takeover carries.
type TakeoverAnswer struct {
	LimbID      string       `json:"limbId,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	Lease       *Lease       `json:"lease,omitempty"`
	Dispatched  string       `json:"dispatched,omitempty"`
}

// takeoverOp is what a client needs to know of op takeover beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from TakeoverArgs and
// TakeoverAnswer (op_takeover_gen.go).
func takeoverOp() OpSpec {
	return OpSpec{
		Name:   OpTakeover,
		Limb:   true,
		Caps:   []string{"takeover"},
		Answer: "a person takes the lease at once",
	}
}
