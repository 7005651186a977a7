package wire

// OpControl is op control's name on the wire.
const OpControl = "control"

// ControlArgs are the arguments of op control.
type ControlArgs struct {
	Envelope
	Target
	// acquire, release, status, yield (release with a recorded reason) or yield_status (read
	// only).
	Action string `json:"action,omitempty" dvv:"variant,required,enum=acquire|release|status|yield|yield_status"`
	// Shown to the person on acquire; recorded on yield.
	Reason string `json:"reason,omitempty" dvv:"only=acquire|release|yield,label=256"`
	// acquire only: how long to wait for a lease someone else holds; 0 fails at once.
	// note: 0 fails at once
	WaitMs *int `json:"waitMs,omitempty" dvv:"only=acquire,min=0,max=600000"`
}

// ControlAnswer is what a success of op control carries.
type ControlAnswer struct {
	LimbID      string       `json:"limbId,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	Lease       *Lease       `json:"lease,omitempty"`
	Dispatched  string       `json:"dispatched,omitempty"`
}

// controlOp is what a client needs to know of op control beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ControlArgs and
// ControlAnswer (op_control_gen.go).
func controlOp() OpSpec {
	return OpSpec{
		Name:       OpControl,
		Limb:       true,
		ActionCaps: map[string][]string{"acquire": {"control"}, "release": {"control"}, "yield": {"control"}, "status": {}, "yield_status": {}},
		Raises:     codes(LeaseNotHeld, LeaseRevoked, Timeout),
		Answer:     "`lease`, `observation`",
	}
}
