package wire

// OpClick is op click's name on the wire.
const OpClick = "click"

// clickOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_click_gen.go).
func clickOp() OpSpec {
	return OpSpec{Name: OpClick, Brief: true, ListedOn: desktops, Answers: answers("dispatched", "verification"), Limb: true, Recorded: true, Kind: KindDesktop, Dispatches: true, Caps: []string{"control"}, Variant: "action",
		Variants: []string{"move", "click", "double", "right", "middle", "drag", "scroll"},
		Fields: limbFields(fld("action", required()), fld("generation"), fld("generationFrom", oneOf("last-read")), fld("x", required()), fld("y", required()),
			fld("toX", only("drag"), required()), fld("toY", only("drag"), required()), fld("button", only("drag"), oneOf("left", "middle", "right")),
			fld("direction", only("scroll"), required(), oneOf("up", "down", "left", "right")), fld("clicks", only("scroll"), within(1, 100)), fld("modifiers"), verifyFieldSpec()),
		Raises: codes(Unfenced, GeometryChanged, OutOfBounds, WrongProtocol, LeaseNotHeld, LeaseRevoked, UnknownKey, NotReady, NotConnected),
		Answer: "`dispatched`"}
}
