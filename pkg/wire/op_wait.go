package wire

// OpWait is op wait's name on the wire.
const OpWait = "wait"

// waitOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_wait_gen.go).
func waitOp() OpSpec {
	return OpSpec{Name: OpWait, ListedOn: bothKinds, Answers: answers("wait", "observation"), Limb: true, ReadOnly: true, RetrySafe: true, Variant: "until", VariantKinds: map[string]string{"exit": KindTerminal, "window": KindDesktop, "window-gone": KindDesktop, "window-active": KindDesktop},
		Variants: []string{"connected", "screen-stable", "screen-changed", "text", "text-gone", "idle", "exit", "window", "window-gone", "window-active"},
		Fields: limbFields(fld("until", required()), fld("text", only("text", "text-gone"), required()),
			fld("quietMs", atLeast(0), note("750")), fld("timeoutMs", atLeast(0), note("8000, clamped to 25000")),
			fld("lang", only("text", "text-gone"), note("desktop text: eng (default), or e.g. eng+deu")),
			fld("window", only("window", "window-gone", "window-active"), required(), note("a window id (0x…) or a part of its title"))),
		Raises: codes(NotReady, NotConnected, Timeout, WrongProtocol, Unsupported, NoStructure),
		Answer: "`wait`: settled, elapsedMs, detail, exitCode, `matches` (desktop until text: where it was read, as in `find`); a timeout is `settled: false`, not an error. On a desktop, text and text-gone recognise the mirror's changed areas (docs/ocr.md); without Tesseract: `UNSUPPORTED`. window, window-gone and window-active read the window manager's list over the desktop's SSH sidecar (as `windows`): a window whose id is `window` or whose title holds it is there, none is, or it is the active one; detail names the window"}
}
