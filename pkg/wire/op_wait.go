package wire

// OpWait is op wait's name on the wire.
const OpWait = "wait"

// waitOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_wait_gen.go).
func waitOp() OpSpec {
	return OpSpec{Name: OpWait, ListedOn: bothKinds, Answers: answers("wait", "observation"), Limb: true, ReadOnly: true, RetrySafe: true, Variant: "until", VariantKinds: map[string]string{"exit": KindTerminal, "element": KindDesktop, "element-gone": KindDesktop, "text-equals": KindDesktop, "text-contains": KindDesktop},
		Variants: []string{"connected", "screen-stable", "screen-changed", "text", "text-gone", "idle", "exit", "element", "element-gone", "text-equals", "text-contains"},
		Fields: limbFields(fld("until", required()), fld("text", only("text", "text-gone", "text-equals", "text-contains"), required()),
			fld("window", only("element", "element-gone"), label(256), note("every window on the screen: an X window id from windows (0x…), a window id from inspect, or part of its title")),
			fld("role", only("element", "element-gone"), label(64), note("any")),
			fld("nameContains", only("element", "element-gone"), label(256), note("any; case ignored")),
			fld("states", only("element", "element-gone"), note("none")),
			fld("element", only("text-equals", "text-contains"), requiredIn("text-equals", "text-contains"), note("an element id from inspect")),
			fld("quietMs", atLeast(0), note("750")), fld("timeoutMs", atLeast(0), note("8000, clamped to 25000")),
			fld("lang", only("text", "text-gone"), note("desktop text: eng (default), or e.g. eng+deu"))),
		Raises: codes(NotReady, NotConnected, Timeout, WrongProtocol, Unsupported, NoStructure, StaleElement, NotFound),
		Answer: "`wait`: settled, elapsedMs, detail, exitCode, `matches` (desktop until text: where it was read, as in `find`); a timeout is `settled: false`, not an error. On a desktop, text and text-gone recognise the mirror's changed areas (docs/ocr.md); without Tesseract: `UNSUPPORTED`. element and element-gone wait for an accessibility element (window, role, nameContains, states, as inspect) to be there or gone, `elements` the ones found; text-equals and text-contains wait for an element's text (never a password field's: `UNSUPPORTED`), `elements` the element read (docs/structure.md)"}
}
