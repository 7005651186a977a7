package wire

// OpTermSend is op term_send's name on the wire.
const OpTermSend = "term_send"

// termSendOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_term_send_gen.go).
func termSendOp() OpSpec {
	return OpSpec{Name: OpTermSend, ListedOn: terminals, Answers: answers("dispatched", "verification"), Limb: true, Recorded: true, Kind: KindTerminal, KindNote: "on a desktop use type or key", Dispatches: true, Caps: []string{"control", "exec"}, Fields: limbFields(fld("text", note("≤ 1 MiB")), fld("bytesHex", note("≤ 1 MiB of bytes")), verifyFieldSpec()),
		Raises: codes(WrongProtocol, LeaseNotHeld, LeaseRevoked, NotConnected),
		Answer: "`dispatched`; `exec` as well as `control` (terminal input runs commands)"}
}
