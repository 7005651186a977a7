package wire

// OpHello is op hello's name on the wire.
const OpHello = "hello"

// HelloArgs are the arguments of op hello.
type HelloArgs struct {
	Envelope
}

// HelloAnswer is what a success of op hello carries.
type HelloAnswer struct {
	Daemon *DaemonInfo `json:"daemon,omitempty"`
}

// helloOp is what a client needs to know of op hello beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from HelloArgs and
// HelloAnswer (op_hello_gen.go).
func helloOp() OpSpec {
	return OpSpec{
		Name:   OpHello,
		Answer: "(takes the envelope: `name`, `token`, `session`, see Attachments) `daemon`: version, protocol, id, pid, attachment, role, caps",
	}
}
