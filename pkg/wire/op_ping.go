package wire

// OpPing is op ping's name on the wire.
const OpPing = "ping"

// PingArgs are the arguments of op ping.
type PingArgs struct {
	Envelope
}

// PingAnswer is what a success of op ping carries.
type PingAnswer struct{}

// pingOp is what a client needs to know of op ping beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from PingArgs and
// PingAnswer (op_ping_gen.go).
func pingOp() OpSpec {
	return OpSpec{
		Name:      OpPing,
		NoAttach:  true,
		Inline:    true,
		ReadOnly:  true,
		RetrySafe: true,
		Answer:    "`ping`",
	}
}
