package wire

// OpFind is op find's name on the wire.
const OpFind = "find"

// FindArgs are the arguments of op find.
type FindArgs struct {
	Envelope
	Target
	// note: none: every line
	Text *string `json:"text,omitempty"`
	// note: {x,y,w,h}
	Region *Region `json:"region,omitempty"`
	// Recognition languages: eng (default), or e.g. eng+deu.
	// note: eng (default), or e.g. eng+deu
	Lang string `json:"lang,omitempty"`
}

// FindAnswer is what a success of op find carries.
type FindAnswer struct {
	LimbID      string       `json:"limbId,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	Find        *FindResult  `json:"find,omitempty"`
}

// findOp is what a client needs to know of op find beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from FindArgs and
// FindAnswer (op_find_gen.go).
func findOp() OpSpec {
	return OpSpec{
		Name:      OpFind,
		Limb:      true,
		Kind:      KindDesktop,
		KindNote:  "on a terminal use term_read or screen for the text grid",
		Caps:      []string{"screen.read"},
		ReadOnly:  true,
		RetrySafe: true,
		Raises:    codes(NotReady, NotConnected, OutOfBounds, WrongProtocol, Unsupported, Timeout),
		Answer:    "`find`: `matches` [text, box, center, confidence 0..1, generation, match (`word`: at word edges, `part`: inside a longer word; whole words first)], `lines` (without text), lang, generation, `cached`, imageSpace (native pixels, scale 1). Desktop limbs only; case and spacing ignored; a match never spans lines; without Tesseract: `UNSUPPORTED` with how to install it",
	}
}
