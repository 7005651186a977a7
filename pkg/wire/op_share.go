package wire

// OpShare is op share's name on the wire.
const OpShare = "share"

// ShareArgs are the arguments of op share.
type ShareArgs struct {
	Envelope
	Target
	// note: with tcp: the port on 127.0.0.1 (any free one when absent); fixed until the share
	// stops
	Port *int `json:"port,omitempty" dvv:"only=start,min=1,max=65535"`
	// note: start when absent
	Action   string `json:"action,omitempty" dvv:"variant,enum=start|stop"`
	ViewOnly bool   `json:"viewOnly,omitempty" dvv:"only=start"`
	// note: 127.0.0.1 with a one-time password
	TCP bool `json:"tcp,omitempty" dvv:"only=start"`
}

// ShareAnswer is what a success of op share carries.
type ShareAnswer struct {
	LimbID     string `json:"limbId,omitempty"`
	Dispatched string `json:"dispatched,omitempty"`
	Share      *Share `json:"share,omitempty"`
}

// shareOp is what a client needs to know of op share beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ShareArgs and
// ShareAnswer (op_share_gen.go).
func shareOp() OpSpec {
	return OpSpec{
		Name:     OpShare,
		Limb:     true,
		Kind:     KindDesktop,
		KindNote: "watch terminals with dvv viewer",
		Caps:     []string{"takeover"},
		Raises:   codes(WrongProtocol, Busy),
		Answer:   "`share`: socket, viewSocket, tcp, password (shown once), expiresMs, viewOnly, viewers",
	}
}
