package wire

// SigAccessibility is the signal saying whether a desktop's accessibility
// tree (AT-SPI over its SSH sidecar) can be read.
const SigAccessibility = "accessibility"

// Window is one window the desktop's window manager lists (EWMH), read
// over the limb's SSH sidecar. Bounds are framebuffer pixels: the X root
// window is the framebuffer on the VNC servers this applies to.
type Window struct {
	ID        string `json:"id"` // X window id, "0x1a00007"; what window and wait take
	Title     string `json:"title"`
	Class     string `json:"class,omitempty"`    // WM_CLASS's class ("Zenity")
	Instance  string `json:"instance,omitempty"` // WM_CLASS's instance ("zenity")
	PID       int    `json:"pid,omitempty"`      // _NET_WM_PID, on the remote machine
	Frame     Region `json:"frame"`              // with the manager's decorations
	Client    Region `json:"client"`             // what the program draws
	Focused   bool   `json:"focused"`
	Workspace int    `json:"workspace"` // 0-based; -1 on every workspace
	Minimized bool   `json:"minimized"`
}

// WindowList is what windows answers.
type WindowList struct {
	Windows []Window `json:"windows"` // bottom to top in stacking order
	// Omitted counts the windows left out, the lowest in the stacking
	// order, beyond the bound of 1000 a list holds.
	Omitted int    `json:"omitted,omitempty"`
	Active  string `json:"active,omitempty"`
	Display string `json:"display"` // the X display the sidecar found, ":1"
	WM      string `json:"wm"`      // the window manager's name
	// Size is the X screen's size, which is the framebuffer's on the VNC
	// servers this applies to (Xvnc, x11vnc).
	Size Size `json:"size"`
}

// WindowAct is what window answers: the act asked, the window as the
// window manager states it afterwards, and whether that is what was
// asked (verified) — read back from EWMH, never assumed.
type WindowAct struct {
	Action   string  `json:"action"`
	Window   *Window `json:"window,omitempty"` // absent once closed
	Verified bool    `json:"verified"`
	Note     string  `json:"note,omitempty"` // what differs from what was asked, and why it may
}

// WorkspaceList is what workspaces answers.
type WorkspaceList struct {
	Count    int      `json:"count"`
	Current  int      `json:"current"` // 0-based
	Names    []string `json:"names,omitzero"`
	Verified bool     `json:"verified,omitempty"` // switch: _NET_CURRENT_DESKTOP read back
}

// ScreenWindow is one window of the layout screen answers beside its
// picture: its frame in native framebuffer pixels and in the picture's
// pixels (image = (native - imageSpace.region origin) * scale, clipped to
// the picture; Visible false when none of it is in the picture).
type ScreenWindow struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Focused bool   `json:"focused"`
	Frame   Region `json:"frame"`
	Image   Region `json:"image"`
	Visible bool   `json:"visible"`
}
