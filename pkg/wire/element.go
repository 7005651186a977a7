package wire

// Element is one accessibility element of a remote desktop (AT-SPI on a
// Linux session, reached over the desktop's SSH sidecar).
type Element struct {
	// ID names the element for element acts; it carries the geometry
	// generation and its window's layout, and is refused (STALE_ELEMENT)
	// once either changed.
	ID     string   `json:"id"`
	Role   string   `json:"role"`
	Name   string   `json:"name,omitempty"`
	States []string `json:"states,omitempty"`
	// Bounds are in framebuffer pixels, the coordinates click takes;
	// Center is the point a click on the element uses.
	Bounds  Region   `json:"bounds"`
	Center  Point    `json:"center"`
	Actions []string `json:"actions,omitempty"`
	// Text is the element's text (at most 256 characters in an inspect);
	// never given for a protected (password) field.
	Text      string        `json:"text,omitempty"`
	Protected bool          `json:"protected,omitempty"`
	Value     *ElementValue `json:"value,omitempty"`
	Depth     int           `json:"depth"`
	// Window is the title of the window the element is in.
	Window string `json:"window,omitempty"`
}

// ElementValue is a range element's value and bounds.
type ElementValue struct {
	Current float64 `json:"current"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Step    float64 `json:"step,omitempty"`
}

// ElementWindow is a top-level window of the accessibility tree.
type ElementWindow struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Role   string   `json:"role"`
	App    string   `json:"app,omitempty"`
	PID    uint32   `json:"pid,omitempty"`
	Bounds Region   `json:"bounds"`
	States []string `json:"states,omitempty"`
}

// InspectResult is inspect's answer.
type InspectResult struct {
	// Windows are the windows the search covered.
	Windows  []ElementWindow `json:"windows"`
	Elements []Element       `json:"elements"`
	// Truncated says the walk stopped at its bound of elements.
	Truncated  bool   `json:"truncated,omitempty"`
	Generation uint64 `json:"generation"`
}

// ElementResult is element's answer: what the act did and read back.
type ElementResult struct {
	Element Element `json:"element"`
	// Verified is true only when the readback showed the act's effect
	// (the exact text, the checked state, the selection, the value).
	Verified bool   `json:"verified"`
	Detail   string `json:"detail"`
	// Text is the text read back (never for a protected field).
	Text  string        `json:"text,omitempty"`
	Value *ElementValue `json:"value,omitempty"`
	// Generation is the geometry generation the element's bounds were
	// read at: what click's generation takes to click its center.
	Generation uint64 `json:"generation"`
}
