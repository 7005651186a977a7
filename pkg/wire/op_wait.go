package wire

// OpWait is op wait's name on the wire.
const OpWait = "wait"

// waitOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_wait_gen.go).
func waitOp() OpSpec {
	return OpSpec{Name: OpWait, ListedOn: bothKinds, Answers: answers("wait", "observation"), Limb: true, ReadOnly: true, RetrySafe: true, Variant: "until",
		VariantKinds: map[string]string{"exit": KindTerminal, "window": KindDesktop, "window-gone": KindDesktop, "window-active": KindDesktop,
			"element": KindDesktop, "element-gone": KindDesktop, "text-equals": KindDesktop, "text-contains": KindDesktop},
		Variants: []string{"connected", "screen-stable", "screen-changed", "text", "text-gone", "idle", "exit", "window", "window-gone", "window-active",
			"element", "element-gone", "text-equals", "text-contains"},
		Fields: limbFields(fld("until", required()), fld("text", only("text", "text-gone", "text-equals", "text-contains"), required()),
			fld("quietMs", atLeast(0), note("750")), fld("timeoutMs", atLeast(0), note("8000, clamped to 25000")),
			fld("lang", only("text", "text-gone"), note("desktop text: eng (default), or e.g. eng+deu")),
			fld("window", only("window", "window-gone", "window-active", "element", "element-gone"), requiredIn("window", "window-gone", "window-active"),
				note("a window id (0x…) or a part of its title; element waits: a window id from inspect too, every window on the screen when absent")),
			fld("role", only("element", "element-gone"), label(64), note("any")),
			fld("nameContains", only("element", "element-gone"), label(256), note("any; case ignored")),
			fld("states", only("element", "element-gone"), note("none")),
			fld("element", only("text-equals", "text-contains"), requiredIn("text-equals", "text-contains"), note("an element id from inspect"))),
		Raises: codes(NotReady, NotConnected, Timeout, WrongProtocol, Unsupported, NoStructure, StaleElement, NotFound),
		Answer: "`wait`: settled, elapsedMs, detail, exitCode, `matches` (desktop until text: where it was read, as in `find`); a timeout is `settled: false`, not an error. On a desktop, text and text-gone recognise the mirror's changed areas (docs/ocr.md); without Tesseract: `UNSUPPORTED`. window, window-gone and window-active read the window manager's list over the desktop's SSH sidecar (as `windows`): a window whose id is `window` or whose title holds it is there, none is, or it is the active one; detail names the window. element and element-gone wait for an accessibility element (window, role, nameContains, states, as inspect) to be there or gone, `elements` the ones found; text-equals and text-contains wait for an element's text (never a password field's: `UNSUPPORTED`), `elements` the element read (docs/structure.md)"}
}
