package wire

// OpSignals is op signals's name on the wire.
const OpSignals = "signals"

// SignalsArgs are the arguments of op signals.
type SignalsArgs struct {
	Envelope
	Target
}

// SignalsAnswer is what a success of op signals carries.
type SignalsAnswer struct {
	LimbID  string  `json:"limbId,omitempty"`
	Signals Signals `json:"signals,omitempty"`
}

// signalsOp is what a client needs to know of op signals beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from SignalsArgs and
// SignalsAnswer (op_signals_gen.go).
func signalsOp() OpSpec {
	return OpSpec{
		Name:      OpSignals,
		Limb:      true,
		Inline:    true,
		ReadOnly:  true,
		RetrySafe: true,
		Answer:    "`signals`",
	}
}
