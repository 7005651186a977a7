package wire

// OpTermRead is op term_read's name on the wire.
const OpTermRead = "term_read"

// TermReadArgs are the arguments of op term_read.
type TermReadArgs struct {
	Envelope
	Target
	// A cursor from an earlier answer; absent means from the start.
	Since string `json:"since,omitempty"`
}

// TermReadAnswer is what a success of op term_read carries.
type TermReadAnswer struct {
	LimbID string    `json:"limbId,omitempty"`
	Term   *TermRead `json:"term,omitempty"`
}

// termReadOp is what a client needs to know of op term_read beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from TermReadArgs and
// TermReadAnswer (op_term_read_gen.go).
func termReadOp() OpSpec {
	return OpSpec{
		Name:      OpTermRead,
		Limb:      true,
		Kind:      KindTerminal,
		Caps:      []string{"screen.read"},
		ReadOnly:  true,
		RetrySafe: true,
		Raises:    codes(NotImplemented, CursorExpired, WrongProtocol),
		Answer:    "`term`: data (or dataBase64), cursor; `CURSOR_EXPIRED` when the ring overwrote the cursor",
	}
}
