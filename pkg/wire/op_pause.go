package wire

// OpPause is op pause's name on the wire.
const OpPause = "pause"

// PauseArgs are the arguments of op pause.
type PauseArgs struct {
	Envelope
	Target
	Action string `json:"action,omitempty" dvv:"variant,required,enum=pause|resume"`
	// note: every limb, also limbs opened later
	All bool `json:"all,omitempty" dvv:"only=pause"`
}

// PauseAnswer is what a success of op pause carries.
type PauseAnswer struct {
	Dispatched string       `json:"dispatched,omitempty"`
	Paused     *PauseResult `json:"paused,omitempty"`
}

// pauseOp is what a client needs to know of op pause beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from PauseArgs and
// PauseAnswer (op_pause_gen.go).
func pauseOp() OpSpec {
	return OpSpec{
		Name:   OpPause,
		Caps:   []string{"takeover"},
		Raises: codes(LimbGone),
		Answer: "`paused`: all, limbs; pause needs a limb or `all`, resume without a limb resumes everything. A pause takes no lease away: an agent that held one and is still attached acts again after resume with no acquire",
	}
}
