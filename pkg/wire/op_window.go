package wire

// OpWindow is op window's name on the wire.
const OpWindow = "window"

// WindowArgs are the arguments of op window.
type WindowArgs struct {
	Envelope
	Target
	Action string `json:"action,omitempty" dvv:"variant,required,enum=activate|move|resize|close"`
	// note: the frame's left edge, framebuffer pixels
	X *int `json:"x,omitempty" dvv:"required,only=move,min=0"`
	// note: the frame's top edge
	Y *int `json:"y,omitempty" dvv:"required,only=move,min=0"`
	// note: 1000: how long to wait for the window manager to do it
	TimeoutMs *int `json:"timeoutMs,omitempty" dvv:"min=0,max=10000"`
	// note: an id as windows answers it, 0x…
	Window string "json:\"window,omitempty\" dvv:\"required\" need:\"; `windows` lists the ids\""
	// note: the client area's width, framebuffer pixels
	Width *int `json:"width,omitempty" dvv:"required,only=resize,min=1,max=32768"`
	// note: the client area's height
	Height *int `json:"height,omitempty" dvv:"required,only=resize,min=1,max=32768"`
}

// WindowAnswer is what a success of op window carries.
type WindowAnswer struct {
	LimbID string     `json:"limbId,omitempty"`
	Window *WindowAct `json:"window,omitempty"`
}

// windowOp is what a client needs to know of op window beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from WindowArgs and
// WindowAnswer (op_window_gen.go).
func windowOp() OpSpec {
	return OpSpec{
		Name:     OpWindow,
		Limb:     true,
		Kind:     KindDesktop,
		KindNote: "a terminal has no windows: use run",
		Caps:     []string{"control"},
		Raises:   codes(NoStructure, NotFound, WrongProtocol, LeaseNotHeld, LeaseRevoked, NotConnected, HostKeyUnknown, Timeout),
		Answer:   "`window`: action, window (as the window manager states it afterwards; absent once closed), verified (what was asked was read back from EWMH: active, frame at x,y, client w×h, gone; and the mirror changed where the window was or is now), note (why not, and which side disagreed: a program may keep a minimum size or ask before closing; a window on another workspace or covered is stated moved but not drawn)",
	}
}
