package wire

// OpExpect is op expect's name on the wire.
const OpExpect = "expect"

// ExpectArgs are the arguments of op expect.
type ExpectArgs struct {
	Envelope
	Target
	// note: {x,y,w,h}: where to look
	Region *Region `json:"region,omitempty"`
	// The picture to look for, PNG as base64, at most 1024x1024.
	// note: PNG, at most 1024x1024
	TemplateBase64 string `json:"templateBase64,omitempty" dvv:"required" need:"the picture to look for, as PNG"`
	// Least score that counts as found, 0..1; default 0.95.
	// note: 0..1, default 0.95
	Threshold *float64 `json:"threshold,omitempty"`
	// Deadline; default 8000, clamped to 25000.
	// note: 8000, clamped to 25000
	TimeoutMs *int `json:"timeoutMs,omitempty" dvv:"min=0"`
}

// ExpectAnswer is what a success of op expect carries.
type ExpectAnswer struct {
	LimbID      string        `json:"limbId,omitempty"`
	Observation *Observation  `json:"observation,omitempty"`
	Expect      *ExpectResult `json:"expect,omitempty"`
}

// expectOp is what a client needs to know of op expect beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ExpectArgs and
// ExpectAnswer (op_expect_gen.go).
func expectOp() OpSpec {
	return OpSpec{
		Name:      OpExpect,
		Limb:      true,
		Kind:      KindDesktop,
		KindNote:  "on a terminal use wait until text",
		Caps:      []string{"screen.read"},
		ReadOnly:  true,
		RetrySafe: true,
		Raises:    codes(NotReady, NotConnected, OutOfBounds, WrongProtocol, Timeout),
		Answer:    "`expect`: found, box, center, score 0..1 (zero-mean normalized cross-correlation), generation, elapsedMs; searched on the mirror where it changed; not seen by the deadline is `found: false`, not an error; a flat template (too little detail) is `BAD_REQUEST`",
	}
}
