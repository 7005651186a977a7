package wire

// OpInspect is op inspect's name on the wire.
const OpInspect = "inspect"

// InspectArgs are the arguments of op inspect.
type InspectArgs struct {
	Envelope
	Target
	// note: any: e.g. `push button`, `text`, `check box`, `combo box`, `menu item`, `table
	// cell`
	Role string `json:"role,omitempty" dvv:"label=64"`
	// note: any; case ignored
	NameContains string `json:"nameContains,omitempty" dvv:"label=256"`
	// note: none: every one of these, e.g. ["focusable","showing"]
	States []string `json:"states,omitempty"`
	// note: every window on the screen: an X window id from windows (0x…), a window id from
	// an earlier inspect, or part of its title
	Window string `json:"window,omitempty" dvv:"label=256"`
}

// InspectAnswer is what a success of op inspect carries.
type InspectAnswer struct {
	LimbID  string         `json:"limbId,omitempty"`
	Inspect *InspectResult `json:"inspect,omitempty"`
}

// inspectOp is what a client needs to know of op inspect beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from InspectArgs and
// InspectAnswer (op_inspect_gen.go).
func inspectOp() OpSpec {
	return OpSpec{
		Name:      OpInspect,
		Limb:      true,
		Kind:      KindDesktop,
		KindNote:  "a terminal has no accessibility tree; use term_read",
		Caps:      []string{"screen.read"},
		ReadOnly:  true,
		RetrySafe: true,
		Raises:    codes(NotConnected, WrongProtocol, NoStructure, Unsupported, NotFound, Timeout),
		Answer:    "`inspect`: `windows` [id, title, role, app, pid, bounds], `elements` [id, role, name (at most 1024 bytes), states, bounds and center in framebuffer pixels, actions, text (never a password field's), protected, value, depth, window], truncated (the walk met its bound of 4000 elements; each element is read once), generation. Desktop limbs with an SSH sidecar to a Linux X11 session only; otherwise `STRUCTURE_UNAVAILABLE` with the reason",
	}
}
