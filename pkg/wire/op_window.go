package wire

// OpWindow is op window's name on the wire.
const OpWindow = "window"

// windowOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_window_gen.go).
func windowOp() OpSpec {
	return OpSpec{Name: OpWindow, Answers: answers("window"), Limb: true, Kind: KindDesktop,
		KindNote: "a terminal has no windows: use run", Caps: []string{"control"}, Variant: "action",
		Variants: []string{"activate", "move", "resize", "close"},
		Fields: limbFields(fld("action", required()), fld("window", required("; `windows` lists the ids"), note("an id as windows answers it, 0x…")),
			fld("x", only("move"), required(), atLeast(0), note("the frame's left edge, framebuffer pixels")),
			fld("y", only("move"), required(), atLeast(0), note("the frame's top edge")),
			fld("width", only("resize"), required(), within(1, 1<<15), note("the client area's width, framebuffer pixels")),
			fld("height", only("resize"), required(), within(1, 1<<15), note("the client area's height")),
			fld("timeoutMs", within(0, 10000), note("1000: how long to wait for the window manager to do it"))),
		Raises: codes(NoStructure, NotFound, WrongProtocol, LeaseNotHeld, LeaseRevoked, NotConnected, HostKeyUnknown, Timeout),
		Answer: "`window`: action, window (as the window manager states it afterwards; absent once closed), verified (what was asked was read back from EWMH: active, frame at x,y, client w×h, gone), note (why not: a program may keep a minimum size or ask before closing)"}
}
