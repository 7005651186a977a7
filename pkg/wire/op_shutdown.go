package wire

// OpShutdown is op shutdown's name on the wire.
const OpShutdown = "shutdown"

// ShutdownArgs are the arguments of op shutdown.
type ShutdownArgs struct {
	Envelope
}

// ShutdownAnswer is what a success of op shutdown carries.
type ShutdownAnswer struct{}

// shutdownOp is what a client needs to know of op shutdown beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ShutdownArgs and
// ShutdownAnswer (op_shutdown_gen.go).
func shutdownOp() OpSpec {
	return OpSpec{
		Name:   OpShutdown,
		Caps:   []string{"daemon.admin"},
		Answer: "dvvd stops",
	}
}
