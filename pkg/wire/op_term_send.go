package wire

// OpTermSend is op term_send's name on the wire.
const OpTermSend = "term_send"

// TermSendArgs are the arguments of op term_send.
type TermSendArgs struct {
	Envelope
	Target
	// note: 300; 0 answers at once, `dispatched`
	VerifyMs *int `json:"verifyMs,omitempty" dvv:"min=0,max=MaxVerifyMs"`
	// Sent as UTF-8.
	// note: ≤ 1 MiB
	Text *string `json:"text,omitempty"`
	// Bytes as hex, two digits each, no separators; 03 is Ctrl+C.
	// note: ≤ 1 MiB of bytes
	BytesHex string `json:"bytesHex,omitempty"`
}

// TermSendAnswer is what a success of op term_send carries.
type TermSendAnswer struct {
	LimbID       string        `json:"limbId,omitempty"`
	Dispatched   string        `json:"dispatched,omitempty"`
	Verification *Verification `json:"verification,omitempty"`
}

// termSendOp is what a client needs to know of op term_send beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from TermSendArgs and
// TermSendAnswer (op_term_send_gen.go).
func termSendOp() OpSpec {
	return OpSpec{
		Name:       OpTermSend,
		Limb:       true,
		Kind:       KindTerminal,
		KindNote:   "on a desktop use type or key",
		Dispatches: true,
		Caps:       []string{"control", "exec"},
		Raises:     codes(WrongProtocol, LeaseNotHeld, LeaseRevoked, NotConnected),
		Answer:     "`dispatched`; `exec` as well as `control` (terminal input runs commands)",
	}
}
