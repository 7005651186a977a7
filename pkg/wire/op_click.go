package wire

// OpClick is op click's name on the wire.
const OpClick = "click"

// ClickArgs are the arguments of op click.
type ClickArgs struct {
	Envelope
	Target
	Action string `json:"action,omitempty" dvv:"variant,required,enum=move|click|double|right|middle|drag|scroll"`
	// geometry.generation of the observation the coordinates were computed against. Without
	// it the click is refused (UNFENCED).
	Generation     *uint64 `json:"generation,omitempty"`
	GenerationFrom string  `json:"generationFrom,omitempty" dvv:"enum=last-read"`
	// Framebuffer pixels from the left.
	X *int `json:"x,omitempty" dvv:"required"`
	// Framebuffer pixels from the top.
	Y *int `json:"y,omitempty" dvv:"required"`
	// drag only: where the button is released (x).
	ToX *int `json:"toX,omitempty" dvv:"required,only=drag"`
	// drag only: where the button is released (y).
	ToY *int `json:"toY,omitempty" dvv:"required,only=drag"`
	// drag only: the button held.
	Button string `json:"button,omitempty" dvv:"only=drag,enum=left|middle|right"`
	// scroll only, and needed there.
	Direction string `json:"direction,omitempty" dvv:"required,only=scroll,enum=up|down|left|right"`
	// scroll only: wheel clicks; default 1.
	Clicks    *int     `json:"clicks,omitempty" dvv:"only=scroll,min=1,max=100"`
	Modifiers []string `json:"modifiers,omitempty"`
	// note: 300; 0 answers at once, `dispatched`
	VerifyMs *int `json:"verifyMs,omitempty" dvv:"min=0,max=MaxVerifyMs"`
}

// ClickAnswer is what a success of op click carries.
type ClickAnswer struct {
	LimbID       string        `json:"limbId,omitempty"`
	Dispatched   string        `json:"dispatched,omitempty"`
	Verification *Verification `json:"verification,omitempty"`
}

// clickOp is what a client needs to know of op click beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ClickArgs and
// ClickAnswer (op_click_gen.go).
func clickOp() OpSpec {
	return OpSpec{
		Name:       OpClick,
		Limb:       true,
		Kind:       KindDesktop,
		Dispatches: true,
		Caps:       []string{"control"},
		Raises:     codes(Unfenced, GeometryChanged, OutOfBounds, WrongProtocol, LeaseNotHeld, LeaseRevoked, UnknownKey, NotReady, NotConnected),
		Answer:     "`dispatched`",
	}
}
