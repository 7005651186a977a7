package wire

// OpType is op type's name on the wire.
const OpType = "type"

// TypeArgs are the arguments of op type.
type TypeArgs struct {
	Envelope
	Target
	// note: 300; 0 answers at once, `dispatched`
	VerifyMs *int `json:"verifyMs,omitempty" dvv:"min=0,max=MaxVerifyMs"`
	// The text, typed into whatever has focus.
	Text *string `json:"text,omitempty" dvv:"required"`
	// Throttle in words per minute; default is as fast as the remote accepts.
	Wpm *int `json:"wpm,omitempty" dvv:"min=1,max=100000"`
}

// TypeAnswer is what a success of op type carries.
type TypeAnswer struct {
	LimbID       string        `json:"limbId,omitempty"`
	Dispatched   string        `json:"dispatched,omitempty"`
	Verification *Verification `json:"verification,omitempty"`
}

// typeOp is what a client needs to know of op type beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from TypeArgs and
// TypeAnswer (op_type_gen.go).
func typeOp() OpSpec {
	return OpSpec{
		Name:       OpType,
		Limb:       true,
		Dispatches: true,
		Caps:       []string{"control"},
		Raises:     codes(ScreenChanged, WrongProtocol, LeaseNotHeld, LeaseRevoked, NotImplemented, NotReady, NotConnected),
		Answer:     "`dispatched`; the whole text is checked first (a control character with no key, or invalid UTF-8, is `BAD_REQUEST`; a character the session has no route for — no key on a US keyboard where the server takes scan codes only (QEMU, an RDP server without Unicode input) — is `NOT_IMPLEMENTED` naming every such character; either way nothing is typed); on a terminal limb the text goes to the PTY unfenced, and needs `exec`",
	}
}
