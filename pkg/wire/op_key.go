package wire

// OpKey is op key's name on the wire.
const OpKey = "key"

// keyOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_key_gen.go).
func keyOp() OpSpec {
	return OpSpec{Name: OpKey, Brief: true, ListedOn: desktops, Answers: answers("dispatched", "verification"), Limb: true, Recorded: true, Dispatches: true, Caps: []string{"control"}, Fields: limbFields(fld("keys", required("e.g. Enter, ctrl+c, super+r")), verifyFieldSpec()),
		Raises: codes(ScreenChanged, UnknownKey, LeaseNotHeld, LeaseRevoked, NotReady, NotConnected),
		Answer: "`dispatched`; with shift the key goes as its shifted keysym (shift+a is A, see keys.md); over RDP a chord whose key has no US scan code is `UNKNOWN_KEY` before any key goes down (a Unicode event carries no modifiers); on a terminal limb, the bytes an xterm sends for the chord (normal cursor-key mode), and needs `exec`"}
}
