package wire

// OpElement is op element's name on the wire.
const OpElement = "element"

// elementOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_element_gen.go).
func elementOp() OpSpec {
	acts := []string{"focus", "set-text", "insert", "invoke", "toggle", "select", "value", "expand", "collapse"}
	caps := map[string][]string{"read": {"screen.read"}, "locate": {"screen.read"}}
	for _, a := range acts {
		caps[a] = []string{"control"}
	}
	return OpSpec{Name: OpElement, Answers: answers("element"), Limb: true, Kind: KindDesktop,
		KindNote: "a terminal has no accessibility tree; use term_send", Variant: "action", Variants: append(acts, "read", "locate"), ActionCaps: caps,
		Fields: limbFields(fld("action", required()), fld("element", required("; take an id from inspect")),
			fld("text", only("set-text", "insert"), requiredIn("set-text", "insert")),
			fld("invoke", only("invoke"), label(128), note("the element's first action")),
			fld("state", only("toggle"), oneOf("on", "off"), note("the other way")),
			fld("value", only("value"), requiredIn("value"))),
		Raises: codes(NotConnected, WrongProtocol, NoStructure, Unsupported, NotFound, StaleElement, OutOfBounds, LeaseNotHeld, LeaseRevoked, Timeout),
		Answer: "`element`: the element (as inspect gives it, read again after the act), `verified` (true only for what was read back: the exact text, a password field's length, the checked state, the selection, the value, the focus), `detail`, `text` read back (never a password field's), `value`, `generation` (the geometry generation the bounds were read at). locate only checks the id and answers the element's bounds and center, which `click` takes with that generation (`dvv click L --element ID`)"}
}
