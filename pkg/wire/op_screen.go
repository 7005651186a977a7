package wire

// OpScreen is op screen's name on the wire.
const OpScreen = "screen"

// ScreenArgs are the arguments of op screen.
type ScreenArgs struct {
	Envelope
	Target
	// full (default), region, or damage-crop (only what changed since this attachment's last
	// read).
	Form string `json:"form,omitempty" dvv:"variant,enum=full|region|damage-crop"`
	// note: {x,y,w,h}
	Region *Region `json:"region,omitempty" dvv:"required,only=region" need:"{x, y, w, h}"`
	// Whole frame only: scale factor, e.g. 0.5. Refused beside a region.
	// note: (0,1]
	Scale *float64 `json:"scale,omitempty" dvv:"only=full"`
	// note: auto: the smaller of png and jpeg for this picture; mime says which, and an out
	// ending in .png or .jpg takes its extension
	Format string `json:"format,omitempty" dvv:"enum=png|jpeg|auto"`
	// note: absolute path: written there instead of inline
	Out string `json:"out,omitempty" dvv:"localpath"`
	// note: without scale: the largest of scale 1, 1/2, 1/4, 1/8 that fits
	MaxEdge *int `json:"maxEdge,omitempty" dvv:"only=full,min=1"`
	// note: as maxEdge, for width×height
	MaxPixels *int `json:"maxPixels,omitempty" dvv:"only=full,min=1"`
	// note: desktop: the window layout beside the picture, over the SSH sidecar
	// (docs/structure.md)
	Windows bool `json:"windows,omitempty" dvv:"only=full|region"`
}

// ScreenAnswer is what a success of op screen carries.
type ScreenAnswer struct {
	LimbID      string       `json:"limbId,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	Screen      *Screen      `json:"screen,omitempty"`
}

// screenOp is what a client needs to know of op screen beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ScreenArgs and
// ScreenAnswer (op_screen_gen.go).
func screenOp() OpSpec {
	return OpSpec{
		Name:      OpScreen,
		Limb:      true,
		Caps:      []string{"screen.read"},
		ReadOnly:  true,
		RetrySafe: true,
		Raises:    codes(NotReady, OutOfBounds, NotConnected),
		Answer:    "`screen`: mime, dataBase64 or path, width, height, imageSpace, imageSpaceLine, coverage, generation; terminals: `text` rows and `cursor`; with `windows`: `windows` (id, title, focused, frame in native pixels and in image pixels, bottom to top; the 1000 topmost; `windows` counts the rest) or `windowsAbsent` (why not: the picture is answered all the same)",
	}
}
