package wire

// OpShare is op share's name on the wire.
const OpShare = "share"

// shareOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_share_gen.go).
func shareOp() OpSpec {
	return OpSpec{Name: OpShare, Answers: answers("share", "dispatched"), Limb: true, Kind: KindDesktop, KindNote: "watch terminals with dvv viewer", Caps: []string{"takeover"}, Variant: "action", Variants: []string{"start", "stop"},
		Fields: limbFields(fld("action", note("start when absent")), fld("viewOnly", only("start")), fld("tcp", only("start"), note("127.0.0.1 with a one-time password")),
			fld("port", only("start"), within(1, 65535), note("with tcp: the port on 127.0.0.1 (any free one when absent); fixed until the share stops"))),
		Raises: codes(WrongProtocol, Busy),
		Answer: "`share`: socket, viewSocket, tcp, password (shown once), expiresMs, viewOnly, viewers"}
}
