package wire

// OpElement is op element's name on the wire.
const OpElement = "element"

// ElementArgs are the arguments of op element.
type ElementArgs struct {
	Envelope
	Target
	Action  string  `json:"action,omitempty" dvv:"variant,required,enum=focus|set-text|insert|invoke|toggle|select|value|expand|collapse|read|locate"`
	Text    *string `json:"text,omitempty" dvv:"required=set-text|insert,only=set-text|insert"`
	Element string  `json:"element,omitempty" dvv:"required" need:"; take an id from inspect"`
	// note: the element's first action
	Invoke string `json:"invoke,omitempty" dvv:"only=invoke,label=128"`
	// note: the other way
	State string   `json:"state,omitempty" dvv:"only=toggle,enum=on|off"`
	Value *float64 `json:"value,omitempty" dvv:"required=value,only=value"`
}

// ElementAnswer is what a success of op element carries.
type ElementAnswer struct {
	LimbID  string         `json:"limbId,omitempty"`
	Element *ElementResult `json:"element,omitempty"`
}

// elementOp is what a client needs to know of op element beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ElementArgs and
// ElementAnswer (op_element_gen.go).
func elementOp() OpSpec {
	return OpSpec{
		Name:     OpElement,
		Limb:     true,
		Kind:     KindDesktop,
		KindNote: "a terminal has no accessibility tree; use term_send",
		ActionCaps: map[string][]string{"read": {"screen.read"}, "locate": {"screen.read"},
			"focus": {"control"}, "set-text": {"control"}, "insert": {"control"}, "invoke": {"control"}, "toggle": {"control"},
			"select": {"control"}, "value": {"control"}, "expand": {"control"}, "collapse": {"control"}},
		Raises: codes(NotConnected, WrongProtocol, NoStructure, Unsupported, NotFound, StaleElement, OutOfBounds, LeaseNotHeld, LeaseRevoked, Timeout),
		Answer: "`element`: the element (as inspect gives it, read again after the act), `verified` (true only for what was read back: the exact text, a password field's length, the checked state, the selection, the value, the focus), `detail`, `text` read back (never a password field's), `value`, `generation` (the geometry generation the bounds were read at). locate only checks the id and answers the element's bounds and center, which `click` takes with that generation (`dvv click L --element ID`)",
	}
}
