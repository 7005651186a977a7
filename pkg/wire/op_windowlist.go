package wire

// OpWindows is op windows's name on the wire.
const OpWindows = "windows"

// WindowsArgs are the arguments of op windows.
type WindowsArgs struct {
	Envelope
	Target
}

// WindowsAnswer is what a success of op windows carries.
type WindowsAnswer struct {
	LimbID  string      `json:"limbId,omitempty"`
	Windows *WindowList `json:"windows,omitempty"`
}

// windowsOp is what a client needs to know of op windows beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from WindowsArgs and
// WindowsAnswer (op_windows_gen.go).
func windowsOp() OpSpec {
	return OpSpec{
		Name:      OpWindows,
		Limb:      true,
		Kind:      KindDesktop,
		KindNote:  "a terminal has no windows: use run",
		ReadOnly:  true,
		RetrySafe: true,
		Caps:      []string{"screen.read"},
		Raises:    codes(NoStructure, WrongProtocol, NotConnected, HostKeyUnknown, Timeout),
		Answer:    "`windows`: windows (id, title, class, instance, pid, frame and client bounds in framebuffer pixels, focused, workspace, minimized; bottom to top; at most the 1000 topmost, a title at most 1024 bytes), omitted (how many lower windows were left out), active, display, wm, size — the window manager's EWMH state, read over the desktop's SSH sidecar (docs/structure.md)",
	}
}
