package wire

// OpWait is op wait's name on the wire.
const OpWait = "wait"

// WaitArgs are the arguments of op wait.
type WaitArgs struct {
	Envelope
	Target
	// Needed for until text and text-gone: the text to look for.
	Text *string `json:"text,omitempty" dvv:"required,only=text|text-gone|text-equals|text-contains"`
	// note: desktop text: eng (default), or e.g. eng+deu
	Lang string `json:"lang,omitempty" dvv:"only=text|text-gone"`
	// The condition.
	Until string `json:"until,omitempty" dvv:"variant,required,enum=connected|screen-stable|screen-changed|text|text-gone|idle|exit|window|window-gone|window-active|element|element-gone|text-equals|text-contains"`
	// How long the screen must stay still to count as stable or idle; default 750.
	// note: 750
	QuietMs *int `json:"quietMs,omitempty" dvv:"min=0"`
	// Deadline; default 8000, clamped to 25000.
	// note: 8000, clamped to 25000
	TimeoutMs *int `json:"timeoutMs,omitempty" dvv:"min=0"`
	// note: any
	Role string `json:"role,omitempty" dvv:"only=element|element-gone,label=64"`
	// note: any; case ignored
	NameContains string `json:"nameContains,omitempty" dvv:"only=element|element-gone,label=256"`
	// note: none
	States []string `json:"states,omitempty" dvv:"only=element|element-gone"`
	// note: an element id from inspect
	Element string `json:"element,omitempty" dvv:"required=text-equals|text-contains,only=text-equals|text-contains"`
	// note: a window id (0x…) or a part of its title; element waits: a window id from
	// inspect too, every window on the screen when absent
	Window string `json:"window,omitempty" dvv:"required=window|window-gone|window-active,only=window|window-gone|window-active|element|element-gone"`
}

// WaitAnswer is what a success of op wait carries.
type WaitAnswer struct {
	LimbID      string       `json:"limbId,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	Wait        *WaitResult  `json:"wait,omitempty"`
}

// waitOp is what a client needs to know of op wait beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from WaitArgs and
// WaitAnswer (op_wait_gen.go).
func waitOp() OpSpec {
	return OpSpec{
		Name:      OpWait,
		Limb:      true,
		ReadOnly:  true,
		RetrySafe: true,
		VariantKinds: map[string]string{"exit": KindTerminal, "window": KindDesktop, "window-gone": KindDesktop, "window-active": KindDesktop,
			"element": KindDesktop, "element-gone": KindDesktop, "text-equals": KindDesktop, "text-contains": KindDesktop},
		Raises: codes(NotReady, NotConnected, Timeout, WrongProtocol, Unsupported, NoStructure, StaleElement, NotFound),
		Answer: "`wait`: settled, elapsedMs, detail, exitCode, `matches` (desktop until text: where it was read, as in `find`); a timeout is `settled: false`, not an error. On a desktop, text and text-gone recognise the mirror's changed areas (docs/ocr.md); without Tesseract: `UNSUPPORTED`. window, window-gone and window-active read the window manager's list over the desktop's SSH sidecar (as `windows`): a window whose id is `window` or whose title holds it is there, none is, or it is the active one; detail names the window. element and element-gone wait for an accessibility element (window, role, nameContains, states, as inspect) to be there or gone, `elements` the ones found; text-equals and text-contains wait for an element's text (never a password field's: `UNSUPPORTED`), `elements` the element read (docs/structure.md)",
	}
}
