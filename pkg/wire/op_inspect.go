package wire

// OpInspect is op inspect's name on the wire.
const OpInspect = "inspect"

// inspectOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_inspect_gen.go).
func inspectOp() OpSpec {
	return OpSpec{Name: OpInspect, Answers: answers("inspect"), Limb: true, Kind: KindDesktop,
		KindNote: "a terminal has no accessibility tree; use term_read", Caps: []string{"screen.read"}, ReadOnly: true, RetrySafe: true,
		Fields: limbFields(fld("window", label(256), note("every window on the screen: an X window id from windows (0x…), a window id from an earlier inspect, or part of its title")),
			fld("role", label(64), note("any: e.g. `push button`, `text`, `check box`, `combo box`, `menu item`, `table cell`")),
			fld("nameContains", label(256), note("any; case ignored")),
			fld("states", note("none: every one of these, e.g. [\"focusable\",\"showing\"]"))),
		Raises: codes(NotConnected, WrongProtocol, NoStructure, Unsupported, NotFound, Timeout),
		Answer: "`inspect`: `windows` [id, title, role, app, pid, bounds], `elements` [id, role, name, states, bounds and center in framebuffer pixels, actions, text (never a password field's), protected, value, depth, window], truncated, generation. Desktop limbs with an SSH sidecar to a Linux X11 session only; otherwise `STRUCTURE_UNAVAILABLE` with the reason"}
}
