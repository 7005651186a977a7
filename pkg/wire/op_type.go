package wire

// OpType is op type's name on the wire.
const OpType = "type"

// typeOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_type_gen.go).
func typeOp() OpSpec {
	return OpSpec{Name: OpType, Brief: true, ListedOn: desktops, Answers: answers("dispatched", "verification"), Limb: true, Recorded: true, Dispatches: true, Caps: []string{"control"}, Fields: limbFields(fld("text", required()), fld("wpm", within(1, 100000)), verifyFieldSpec()),
		Raises: codes(ScreenChanged, WrongProtocol, LeaseNotHeld, LeaseRevoked, NotImplemented, NotReady, NotConnected),
		Answer: "`dispatched`; the whole text is checked first (a control character with no key, or invalid UTF-8, is `BAD_REQUEST`; a character the session has no route for — no key on a US keyboard where the server takes scan codes only (QEMU, an RDP server without Unicode input) — is `NOT_IMPLEMENTED` naming every such character; either way nothing is typed); on a terminal limb the text goes to the PTY unfenced, and needs `exec`"}
}
