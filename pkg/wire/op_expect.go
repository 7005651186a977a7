package wire

// OpExpect is op expect's name on the wire.
const OpExpect = "expect"

// expectOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_expect_gen.go).
func expectOp() OpSpec {
	return OpSpec{Name: OpExpect, Answers: answers("expect", "observation"), Limb: true, Kind: KindDesktop, KindNote: "on a terminal use wait until text", Caps: []string{"screen.read"}, ReadOnly: true, RetrySafe: true,
		Fields: limbFields(fld("templateBase64", required("the picture to look for, as PNG"), note("PNG, at most 1024x1024")), fld("region", note("{x,y,w,h}: where to look")),
			fld("threshold", note("0..1, default 0.95")), fld("timeoutMs", atLeast(0), note("8000, clamped to 25000"))),
		Raises: codes(NotReady, NotConnected, OutOfBounds, WrongProtocol, Timeout),
		Answer: "`expect`: found, box, center, score 0..1 (zero-mean normalized cross-correlation), generation, elapsedMs; searched on the mirror where it changed; not seen by the deadline is `found: false`, not an error; a flat template (too little detail) is `BAD_REQUEST`"}
}
