package wire

// OpAttach is op attach's name on the wire.
const OpAttach = "attach"

// AttachArgs are the arguments of op attach.
type AttachArgs struct {
	Envelope
}

// AttachAnswer is what a success of op attach carries.
type AttachAnswer struct {
	Daemon *DaemonInfo `json:"daemon,omitempty"`
}

// attachOp is what a client needs to know of op attach beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from AttachArgs and
// AttachAnswer (op_attach_gen.go).
func attachOp() OpSpec {
	return OpSpec{
		Name:   OpAttach,
		Answer: "as `hello`",
	}
}
