package wire

// OpFind is op find's name on the wire.
const OpFind = "find"

// findOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_find_gen.go).
func findOp() OpSpec {
	return OpSpec{Name: OpFind, Brief: true, Answers: answers("find", "observation"), Limb: true, Kind: KindDesktop, KindNote: "on a terminal use term_read or screen for the text grid", Caps: []string{"screen.read"}, ReadOnly: true, RetrySafe: true,
		Fields: limbFields(fld("text", note("none: every line")), fld("region", note("{x,y,w,h}")), fld("lang", note("eng (default), or e.g. eng+deu"))),
		Raises: codes(NotReady, NotConnected, OutOfBounds, WrongProtocol, Unsupported, Timeout),
		Answer: "`find`: `matches` [text, box, center, confidence 0..1, generation, match (`word`: at word edges, `part`: inside a longer word; whole words first)], `lines` (without text), lang, generation, `cached`, imageSpace (native pixels, scale 1). Desktop limbs only; case and spacing ignored; a match never spans lines; without Tesseract: `UNSUPPORTED` with how to install it"}
}
