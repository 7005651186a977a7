package wire

// TextMatch is one place text was read on a desktop. Box and Center are
// native framebuffer pixels; a click computed from them is fenced with
// Generation like any other coordinate.
type TextMatch struct {
	Text       string  `json:"text"` // the whole words the match touches, as read
	Box        Region  `json:"box"`
	Center     Point   `json:"center"`
	Confidence float64 `json:"confidence"` // 0..1, the least confident word
	Generation uint64  `json:"generation"`
	// Match says how the text was found: MatchWord when it begins and
	// ends at word edges, MatchPart inside a longer word ("Save" in
	// "Saved"). Whole-word matches come first.
	Match string `json:"match"`
}

// TextMatch.Match values.
const (
	MatchWord = "word"
	MatchPart = "part"
)

// TextLine is one recognised line of a desktop (find without text).
type TextLine struct {
	Text       string  `json:"text"`
	Box        Region  `json:"box"`
	Confidence float64 `json:"confidence"`
}

// FindResult answers find.
type FindResult struct {
	Matches    []TextMatch `json:"matches"`
	Lines      []TextLine  `json:"lines,omitzero"` // find without text: every line of the region
	Lang       string      `json:"lang"`
	Generation uint64      `json:"generation"`
	// Cached is true when nothing changed since the last recognition, so
	// the answer cost no recognition at all.
	Cached bool `json:"cached"`
	// ImageSpace is the frame the boxes refer to (native pixels, scale 1):
	// the same space as a full `screen` at scale 1.
	ImageSpace     ImageSpace `json:"imageSpace"`
	ImageSpaceLine string     `json:"imageSpaceLine"`
}

// ExpectResult answers expect. A template not seen by the deadline is an
// ordinary answer with found: false, like a wait that did not settle.
type ExpectResult struct {
	Found      bool    `json:"found"`
	Box        *Region `json:"box,omitempty"`    // where the template is, native pixels
	Center     *Point  `json:"center,omitempty"` // its middle, for a click fenced with Generation
	Score      float64 `json:"score"`            // similarity of the place found, 0..1
	Generation uint64  `json:"generation"`
	ElapsedMs  int64   `json:"elapsedMs"`
	Detail     string  `json:"detail,omitempty"`
}
