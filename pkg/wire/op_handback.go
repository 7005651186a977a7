package wire

// OpHandback is op handback's name on the wire.
const OpHandback = "handback"

// HandbackArgs are the arguments of op handback.
type HandbackArgs struct {
	Envelope
	Target
}

// HandbackAnswer is what a success of op handback carries.
type HandbackAnswer struct {
	LimbID     string `json:"limbId,omitempty"`
	Lease      *Lease `json:"lease,omitempty"`
	Dispatched string `json:"dispatched,omitempty"`
}

// handbackOp is what a client needs to know of op handback beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from HandbackArgs and
// HandbackAnswer (op_handback_gen.go).
func handbackOp() OpSpec {
	return OpSpec{
		Name:   OpHandback,
		Limb:   true,
		Caps:   []string{"takeover"},
		Answer: "`lease`; a person's hold (takeover, a shared VNC viewer, the browser viewer) ends",
	}
}
