package wire

// OpWindows is op windows's name on the wire.
const OpWindows = "windows"

// windowsOp is the op's entry in the op table (ops.go lists the entries; this file is not
// op_windows.go, which Go would build for Windows only);
// its Args, Answer and client method are generated from it (op_windows_gen.go).
func windowsOp() OpSpec {
	return OpSpec{Name: OpWindows, Answers: answers("windows"), Limb: true, Kind: KindDesktop,
		KindNote: "a terminal has no windows: use run", ReadOnly: true, RetrySafe: true, Caps: []string{"screen.read"},
		Fields: selectorFields(),
		Raises: codes(NoStructure, WrongProtocol, NotConnected, HostKeyUnknown, Timeout),
		Answer: "`windows`: windows (id, title, class, instance, pid, frame and client bounds in framebuffer pixels, focused, workspace, minimized; bottom to top), active, display, wm, size — the window manager's EWMH state, read over the desktop's SSH sidecar (docs/structure.md)"}
}
