package wire

// OpKey is op key's name on the wire.
const OpKey = "key"

// KeyArgs are the arguments of op key.
type KeyArgs struct {
	Envelope
	Target
	// note: 300; 0 answers at once, `dispatched`
	VerifyMs *int `json:"verifyMs,omitempty" dvv:"min=0,max=MaxVerifyMs"`
	// One key name, or a chord joined with +: Enter, Escape, Tab, ctrl+c, alt+F4,
	// ctrl+alt+Delete, super+r.
	Keys string `json:"keys,omitempty" dvv:"required" need:"e.g. Enter, ctrl+c, super+r"`
}

// KeyAnswer is what a success of op key carries.
type KeyAnswer struct {
	LimbID       string        `json:"limbId,omitempty"`
	Dispatched   string        `json:"dispatched,omitempty"`
	Verification *Verification `json:"verification,omitempty"`
}

// keyOp is what a client needs to know of op key beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from KeyArgs and
// KeyAnswer (op_key_gen.go).
func keyOp() OpSpec {
	return OpSpec{
		Name:       OpKey,
		Limb:       true,
		Dispatches: true,
		Caps:       []string{"control"},
		Raises:     codes(ScreenChanged, UnknownKey, LeaseNotHeld, LeaseRevoked, NotReady, NotConnected),
		Answer:     "`dispatched`; with shift the key goes as its shifted keysym (shift+a is A, see keys.md); over RDP a chord whose key has no US scan code is `UNKNOWN_KEY` before any key goes down (a Unicode event carries no modifiers); on a terminal limb, the bytes an xterm sends for the chord (normal cursor-key mode), and needs `exec`",
	}
}
